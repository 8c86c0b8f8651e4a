-- Closed-loop throttle for wrk (Debian ships wrk 4, which has no constant-rate mode):
-- each connection waits `delay_ms` between requests, so total offered load is about
-- connections * 1000 / delay_ms req/s. Used to measure latency at a fraction of max load.
local delay_ms = tonumber(os.getenv("WRK_DELAY_MS") or "1")
function delay()
  return delay_ms
end
