-- Argo CD health check for agentplatform.io/PlatformConnection and ClusterPlatformConnection
-- (the same script under both kinds). The operator probes a connection and writes two
-- conditions: Ready (the credential authenticates) and Reachable (the platform API, and the
-- private domain when one is set, answer /ok). Order matters:
--   1. no status               -> Progressing ("Waiting for status")
--   2. generation not observed -> Progressing (the status describes an older spec)
--   3. Ready=False, reason InUse
--                              -> Progressing (being deleted; waits for the AgentDeployments
--                                              that still name it)
--   4. Ready=False             -> Degraded   (Unauthorized, Refused, SecretNotFound,
--                                             AddressNotAllowed: a key, Secret or URL to fix)
--   5. Reachable=False         -> Degraded   (the key works but the platform API or the
--                                             private domain does not answer)
--   6. Ready=True              -> Healthy
--   7. otherwise               -> Progressing (Ready=Unknown: not checked yet, or the control
--                                              plane could not be asked)
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

local ready = findCondition(status.conditions, "Ready")
if ready ~= nil and ready.status == "False" and ready.reason == "InUse" then
  hs.status = "Progressing"
  hs.message = messageOf(ready, "InUse")
  return hs
end

if ready ~= nil and ready.status == "False" then
  hs.status = "Degraded"
  hs.message = messageOf(ready, "Not ready")
  return hs
end

local reachable = findCondition(status.conditions, "Reachable")
if reachable ~= nil and reachable.status == "False" then
  hs.status = "Degraded"
  hs.message = messageOf(reachable, "Unreachable")
  return hs
end

if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = messageOf(ready, "Ready")
  return hs
end

hs.status = "Progressing"
hs.message = messageOf(ready, "Waiting for the first probe")
return hs
