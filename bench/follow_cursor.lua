-- wrk script for idle incremental syncs as a polling phone sends them (bench/read-targets,
-- bench/sync): every request carries the phone's headers and the newest `next_since` any
-- answer returned, so each poll asks "anything after what I have?" with a current cursor.
-- (Replaying one fixed cursor is another request: once the server has read past it, every
-- poll goes to PostgreSQL; docs/performance.md, per-request overhead.)
--
-- Environment: SYNC_PATH (the first request's path, /v1/sync?since=<cursor>), SYNC_TOKEN
-- (the access token). A cursor is base64url, so it needs no escaping in a query string.
local path = os.getenv("SYNC_PATH")
local headers = {
  ["Authorization"] = "Bearer " .. os.getenv("SYNC_TOKEN"),
  -- What iOS's URLSession sends on every request unless told otherwise.
  ["Accept"] = "*/*",
  ["Accept-Encoding"] = "gzip, deflate, br",
  ["Accept-Language"] = "en-US,en;q=0.9",
  ["User-Agent"] = "Dispatch/1.0 CFNetwork/1568.100.1 Darwin/24.0.0",
}

function request()
  return wrk.format("GET", path, headers)
end

function response(status, _, body)
  if status ~= 200 then return end  -- wrk counts it under "Non-2xx"; the bench fails the run
  local next_since = body:match('"next_since":"([^"]+)"')
  if next_since then path = "/v1/sync?since=" .. next_since end
end
