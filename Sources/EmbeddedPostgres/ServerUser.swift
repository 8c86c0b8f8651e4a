import Foundation

/// Who runs the server programs. PostgreSQL refuses to run as root, so a root process runs
/// them as an unprivileged account via runuser and hands it the directories.
struct ServerUser {
    let isRoot: Bool
    let name: String
    let uid: uid_t
    let gid: gid_t

    init(osUser: String) throws {
        isRoot = geteuid() == 0
        guard isRoot else {
            name = ""
            uid = geteuid()
            gid = getegid()
            return
        }
        guard let entry = getpwnam(osUser) else {
            throw EmbeddedPostgresError(
                kind: .filesystem,
                message: "running as root but OS user \"\(osUser)\" does not exist (install postgresql: apt-get install -y postgresql, or create the user)")
        }
        name = osUser
        uid = entry.pointee.pw_uid
        gid = entry.pointee.pw_gid
    }

    func command(_ program: String) -> String {
        isRoot ? (PostgresBinaries.searchPath("runuser") ?? "/usr/sbin/runuser") : program
    }

    func arguments(_ program: String, _ arguments: [String]) -> [String] {
        isRoot ? ["-u", name, "--", program] + arguments : arguments
    }

    /// Creates `path` (0700) if missing and makes sure the server user owns it. An existing
    /// directory owned by someone else is refused: in /tmp that could be a planted trap.
    func prepareDirectory(_ path: String) throws {
        var info = stat()
        if lstat(path, &info) != 0 {
            do {
                // Parents get ordinary permissions so the server user can traverse them; only
                // the directory itself is private.
                let parent = (path as NSString).deletingLastPathComponent
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            } catch {
                throw EmbeddedPostgresError(kind: .filesystem, message: "cannot create \(path): \(error)")
            }
            if isRoot, chown(path, uid, gid) != 0 {
                throw EmbeddedPostgresError(kind: .filesystem, message: "cannot chown \(path) to \(name): errno \(errno)")
            }
            return
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw EmbeddedPostgresError(kind: .filesystem, message: "\(path) exists and is not a directory")
        }
        guard info.st_uid == uid else {
            throw EmbeddedPostgresError(kind: .filesystem, message: "\(path) is owned by uid \(info.st_uid), expected \(uid)")
        }
    }
}
