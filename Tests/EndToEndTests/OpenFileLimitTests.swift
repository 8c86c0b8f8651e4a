import Foundation
import Glibc
import Testing
@testable import dispatchd
import TestSupport

/// `dispatchd serve` raises its soft open-file limit to the hard one at start (each connection,
/// realtime subscriber and parked long-poll holds a descriptor), and logs both.
@Suite struct OpenFileLimitTests {
    @Test func serveStartedWithALowSoftLimitRaisesItToTheHardLimitAndLogsBoth() throws {
        var inherited = rlimit()
        #expect(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &inherited) == 0)
        // The shell lowers only the soft limit; the hard one must be above it for the test to mean anything.
        try #require(inherited.rlim_max > 256, "the hard open-file limit (\(inherited.rlim_max)) must exceed 256")
        let database = try TestDatabase.create()
        let environment = ["DATABASE_URL": database.url, "JWT_SECRET": String(repeating: "n", count: 40),
                           "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789", "LOG_FORMAT": "json",
                           "HOST": "127.0.0.1", "PORT": "0"]
        let server = try ServedDispatchd(environment: environment, shell: "ulimit -Sn 256")
        let limits = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/limits", encoding: .utf8)
        let log = try server.stop()

        // "Max open files            20000                20000                files"
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        #expect(numbers.count == 2 && numbers[0] == numbers[1] && numbers[1] == Int(inherited.rlim_max), "\(line)")

        let entries = log.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let entry = try #require(entries.first { $0["msg"] as? String == "open file limit" }, "\(log.suffix(1000))")
        #expect(entry["soft_at_start"] as? Int == 256)
        #expect(entry["soft"] as? Int == Int(inherited.rlim_max))
        #expect(entry["hard"] as? Int == Int(inherited.rlim_max))
    }
}

/// Without HTTP_MAX_CONNECTIONS, the connection limit is what the open-file limit leaves after
/// the process's own descriptors; a connection beyond it gets its 503 instead of an EMFILE.
@Suite struct DefaultMaxConnectionsTests {
    @Test func unsetMaxConnectionsFollowsTheOpenFileLimit() throws {
        let database = try TestDatabase.create()
        let environment = ["DATABASE_URL": database.url, "JWT_SECRET": String(repeating: "n", count: 40),
                           "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789", "LOG_FORMAT": "json",
                           "HOST": "127.0.0.1", "PORT": "0"]
        // 1,100 descriptors: 550 for connections (half, as the limit is small).
        let server = try ServedDispatchd(environment: environment, shell: "ulimit -n 1100")
        let log = try server.stop()
        let entries = log.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let listening = try #require(entries.first { $0["msg"] as? String == "listening" }, "\(log.suffix(1000))")
        #expect(listening["max_connections"] as? Int == 550, "\(listening)")
    }

    @Test func defaultLeavesTheReserveOrHalfASmallLimit() {
        #expect(OpenFileLimit(soft: 65536, hard: 65536).defaultMaxConnections == 64512)
        // A container's 1,048,576 does not become a million connections' worth of memory.
        #expect(OpenFileLimit(soft: 1_048_576, hard: 1_048_576).defaultMaxConnections == 65536)
        #expect(OpenFileLimit(soft: 20000, hard: 65536).defaultMaxConnections == 18976)
        #expect(OpenFileLimit(soft: 1024, hard: 1024).defaultMaxConnections == 512)
        #expect(OpenFileLimit(soft: 1, hard: 1).defaultMaxConnections == 1)
    }
}
