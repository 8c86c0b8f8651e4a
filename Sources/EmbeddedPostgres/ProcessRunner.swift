import Foundation
import Glibc

/// Runs a helper program to completion and captures its combined output.
enum ProcessRunner {
    struct Result {
        let status: Int32
        let output: String
    }

    /// posix_spawn + waitpid instead of Foundation.Process: Process detects exit through a
    /// socket the child inherits, and `pg_ctl start` leaves a server holding it forever.
    static func run(_ executable: String, _ arguments: [String], currentDirectory: String? = nil) throws -> Result {
        let outputPath = NSTemporaryDirectory() + "/embedded-pg-\(UUID().uuidString).log"
        let fd = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw EmbeddedPostgresError(kind: .filesystem, message: "cannot create \(outputPath)") }
        defer { close(fd); unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fd, 1)
        posix_spawn_file_actions_adddup2(&actions, fd, 2)
        // glibc's posix_spawn_file_actions_addchdir_np is not visible to Swift; a shell changes
        // directory instead. Paths travel as arguments ($0, $@), never inside the script text.
        var program = executable
        var commandLine = [executable] + arguments
        if let currentDirectory {
            program = "/bin/sh"
            commandLine = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", currentDirectory] + commandLine
        }
        let argv = commandLine.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw EmbeddedPostgresError(kind: .commandFailed, message: "cannot start \(executable): errno \(spawned)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        return Result(status: exitStatus, output: String(decoding: data, as: UTF8.self))
    }
}
