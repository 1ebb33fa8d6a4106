-- Argo CD health check for agentplatform.io/AgentDeployment.
-- The operator follows kstatus: Ready, Reconciling and Stalled conditions, each with an
-- observedGeneration, plus status.observedGeneration. Order matters:
--   1. spec.suspend            -> Suspended  (the user paused it; nothing else will change)
--   2. generation not observed -> Progressing (the status describes an older spec)
--   3. Stalled=True            -> Degraded   (terminal: the spec must change)
--                                             (RolledBack is Stalled too: spec.rollback set a
--                                             failed revision back; an older one runs)
--   4. Ready=False, reason SmokeTestFailed
--                              -> Degraded   (the revision runs but failed spec.smokeTest;
--                                             not Stalled: a new revision or a changed
--                                             smoke test tries again)
--   5. Ready=True              -> Healthy
--   6. Reconciling=True        -> Progressing (a smoke test under way is SmokeTestPending here)
--   7. otherwise               -> Progressing ("Waiting for status")
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

if obj.spec ~= nil and obj.spec.suspend == true then
  hs.status = "Suspended"
  hs.message = "Reconciliation is suspended (spec.suspend is true)"
  return hs
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
if ready ~= nil and ready.status == "False" and ready.reason == "SmokeTestFailed" then
  hs.status = "Degraded"
  hs.message = messageOf(ready, "SmokeTestFailed")
  return hs
end

if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = messageOf(ready, "Ready")
  return hs
end

local reconciling = findCondition(status.conditions, "Reconciling")
if reconciling ~= nil and reconciling.status == "True" then
  hs.status = "Progressing"
  hs.message = messageOf(reconciling, "Reconciling")
  return hs
end

hs.status = "Progressing"
hs.message = messageOf(ready, "Waiting for status")
return hs
