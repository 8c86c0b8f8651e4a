import Glibc
import HTTP1

/// What connection state machines need from the outside world: the time, the `Date` value,
/// request ids, settings. Owned and mutated by the event loop thread only; tests build one
/// with a fixed clock.
final class ConnectionEnvironment {
    struct Timeouts {
        var header: Int64
        var body: Int64
        var idle: Int64
        var write: Int64
        /// How long a closing connection keeps draining input after its last response, so
        /// unread request bytes don't turn our close into a RST that destroys that response.
        var linger: Int64
    }

    /// Monotonic nanoseconds, set by the loop once per iteration.
    var now: Int64 = 0
    var timeouts: Timeouts
    var limits: HTTPParserLimits
    var shuttingDown = false
    private var requestIDs: RequestIDGenerator
    private let fixedDate: String?
    private var cachedSecond = Int.min
    private var cachedDate = ""

    init(timeouts: Timeouts, limits: HTTPParserLimits, fixedDate: String? = nil, seed: UInt64? = nil) {
        self.timeouts = timeouts
        self.limits = limits
        self.fixedDate = fixedDate
        self.requestIDs = RequestIDGenerator(seed: seed)
    }

    /// The IMF-fixdate for this second, formatted at most once per second.
    var date: String {
        if let fixedDate { return fixedDate }
        let second = Int(time(nil))
        if second != cachedSecond {
            cachedSecond = second
            cachedDate = HTTPResponseEncoder.imfFixdate(secondsSince1970: second)
        }
        return cachedDate
    }

    /// The client's `X-Request-Id` when it is a sane short token, else a fresh random one.
    func requestID(from headers: HTTPHeaders?) -> String {
        let supplied = headers?.fields.first { HTTPResponseEncoder.asciiCaseInsensitiveEquals($0.name, "x-request-id") }
        if let value = supplied?.value, RequestIDGenerator.isAcceptable(value) { return value }
        return requestIDs.next()
    }

    static func monotonicNow() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}

/// 16 hex digits from a SplitMix64 stream seeded once from the system RNG: unique enough for
/// correlating logs, and no syscall per request.
struct RequestIDGenerator {
    private var state: UInt64

    init(seed: UInt64? = nil) {
        var rng = SystemRandomNumberGenerator()
        state = seed ?? rng.next()
    }

    mutating func next() -> String {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let hex = String(z, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// 1–64 characters of `[A-Za-z0-9._-]`: safe to echo into headers and logs.
    static func isAcceptable(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= 64 else { return false }
        return bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F
        }
    }
}
