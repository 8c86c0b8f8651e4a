import CLinuxSys
import Foundation

/// Runs a helper program to completion and captures its combined output.
///
/// Uses posix_spawn + waitpid directly: Foundation's Process did not reliably reap children
/// when waited on from test threads (observed hangs with a zombie runuser).
public enum ProcessRunner {
    public struct Result: Sendable {
        public let status: Int32
        public let output: String
    }

    /// Output goes to a temporary file rather than a pipe: `pg_ctl start` leaves a server
    /// running, and a pipe inherited by it would never reach end-of-file.
    /// `environment` adds to (or overrides in) this process's environment for the child only:
    /// secrets such as PGPASSWORD go there, never on a command line `ps` shows.
    /// `standardOutput`: a descriptor the child writes its standard output to (a file the
    /// caller created with the permissions it needs); `output` then holds standard error only.
    public static func run(_ executable: String, _ arguments: [String], currentDirectory: String? = nil,
                           environment: [String: String] = [:], standardOutput: Int32? = nil) throws -> Result {
        let outputPath = NSTemporaryDirectory() + "/embedded-pg-\(UUID().uuidString).log"
        let outputDescriptor = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard outputDescriptor >= 0 else {
            throw EmbeddedPostgresError(kind: .filesystem, message: "cannot create \(outputPath): errno \(errno)")
        }
        defer {
            close(outputDescriptor)
            unlink(outputPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput ?? outputDescriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, outputDescriptor, 2)
        try closeInheritedDescriptors(&actions)
        // posix_spawn_file_actions_addchdir_np is not visible to Swift; `env -C` does the chdir.
        let (program, programArguments) = currentDirectory.map { ("/usr/bin/env", ["-C", $0, executable] + arguments) }
            ?? (executable, arguments)
        let argv = ([program] + programArguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawnError: Int32
        if environment.isEmpty {
            spawnError = posix_spawn(&pid, program, &actions, nil, argv, environ)
        } else {
            var merged = ProcessInfo.processInfo.environment
            merged.merge(environment) { $1 }
            let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { envp.forEach { free($0) } }
            spawnError = posix_spawn(&pid, program, &actions, nil, argv, envp)
        }
        guard spawnError == 0 else {
            throw EmbeddedPostgresError(kind: .commandFailed, message: "cannot start \(executable): errno \(spawnError)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw EmbeddedPostgresError(kind: .commandFailed, message: "waitpid for \(executable) failed: errno \(errno)")
            }
        }
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        // WIFEXITED/WEXITSTATUS are macros; decode the status word by hand.
        let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: exitStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// The child keeps only stdin, stdout and stderr. `pg_ctl start` leaves a postmaster running
    /// with whatever it inherited, and PostgreSQL subtracts every inherited descriptor from
    /// `max_files_per_process`: a test process holding ~950 sockets without close-on-exec made
    /// it refuse to start ("insufficient file descriptors … System allows 37"). Our own
    /// descriptors are close-on-exec, but a library's or a parallel test's may not be, so the
    /// child closes everything above 2. The closefrom action runs inside the spawn, so a
    /// descriptor another thread opens meanwhile is closed too.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
        let error = posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        guard error == 0 else {
            throw EmbeddedPostgresError(kind: .commandFailed, message: "cannot prepare the child's descriptors: errno \(error)")
        }
    }
}
