-- Argo CD health check for agentplatform.io/TraceDeletion and ExampleDeletion (the same script
-- under both kinds). The operator derives kstatus conditions from status.phase: Ready=True
-- when Completed, Stalled=True when Failed or blocked, Reconciling=True while anything is
-- still to happen. Order matters:
--   1. no status               -> Progressing ("Waiting for status")
--   2. generation not observed -> Progressing (the status describes an older spec)
--   3. Stalled=True            -> Degraded   (Failed: data survived the deadline, too many
--                                             matches, ids changed; or blocked: the connection
--                                             or a ConfigMap needs a change elsewhere)
--   4. Ready=True              -> Healthy    (Completed: verified, or a dry run counted)
--   5. otherwise               -> Progressing (Pending, Submitting, Submitted, Verifying;
--                                              verification can take days, so keep deletions
--                                              in an Application of their own)
-- Written for Lua 5.1 (Argo CD runs gopher-lua).
local hs = {}

local function findCondition(conditions, conditionType)
  if conditions == nil then
    return nil
  end
  for _, condition in ipairs(conditions) do
    if condition.type == conditionType then
      return condition
    end
  end
  return nil
end

local function messageOf(condition, fallback)
  if condition ~= nil and condition.message ~= nil and condition.message ~= "" then
    return condition.message
  end
  if condition ~= nil and condition.reason ~= nil and condition.reason ~= "" then
    return condition.reason
  end
  return fallback
end

local status = obj.status
if status == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for status"
  return hs
end

local generation = obj.metadata and obj.metadata.generation
if generation ~= nil and (status.observedGeneration == nil or status.observedGeneration < generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to observe generation " .. tostring(generation)
  return hs
end

local stalled = findCondition(status.conditions, "Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = messageOf(stalled, "Stalled")
  return hs
end

local ready = findCondition(status.conditions, "Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = messageOf(ready, "Completed")
  return hs
end

local reconciling = findCondition(status.conditions, "Reconciling")
hs.status = "Progressing"
if status.phase ~= nil and status.phase ~= "" then
  hs.message = status.phase .. ": " .. messageOf(reconciling, messageOf(ready, "in progress"))
else
  hs.message = messageOf(reconciling, "Waiting for status")
end
return hs
