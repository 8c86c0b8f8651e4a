import Foundation
import Testing
@testable import EmbeddedPostgres

/// A spawned helper (pg_ctl, and the postmaster it leaves running) must not inherit the test
/// process's descriptors: PostgreSQL counts inherited ones against `max_files_per_process` and
/// refuses to start when a busy parallel test run holds hundreds of sockets.
@Suite struct ProcessRunnerTests {
    @Test func aDescriptorWithoutCloseOnExecIsNotInherited() throws {
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)  // deliberately without O_CLOEXEC
        defer { descriptors.forEach { close($0) } }
        let probe = "test -e /proc/self/fd/\(descriptors[1]) && echo inherited || echo closed"
        let result = try ProcessRunner.run("/bin/sh", ["-c", probe])
        #expect(result.status == 0)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "closed")
    }

    @Test func stdoutAndStderrStillReachTheCapturedOutput() throws {
        let result = try ProcessRunner.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(result.status == 3)
        #expect(result.output.contains("out") && result.output.contains("err"))
    }
}
