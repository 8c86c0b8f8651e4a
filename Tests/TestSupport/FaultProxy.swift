import Foundation
import Synchronization

/// A TCP proxy on 127.0.0.1 in front of PostgreSQL that can cut the line the ways networks do:
/// - `partition()`: a blackhole. Bytes stop flowing both ways while every socket stays open
///   (the kernel still acknowledges them), as with a dead route or a frozen peer; `heal()`
///   lets them flow again. Connections accepted meanwhile are held the same way.
/// - `resetAll()`: every connection is reset (RST), as when a firewall or a failover drops them.
/// - `resetAfterCommit(marker:)`: the connection whose client sends `marker` is reset the moment
///   its transaction has committed: the server's ReadyForQuery("idle") that follows is withheld.
///   The write is in the database, and the client never hears it.
/// Upstream is `FaultProxy.Upstream`: a unix socket (the embedded cluster listens on no TCP
/// port) or a TCP address.
public final class FaultProxy: @unchecked Sendable {
    public enum Upstream: Sendable {
        case unixSocket(path: String)
        case tcp(host: String, port: UInt16)
    }

    public let port: Int
    /// The role clients connect as (the proxy forwards whatever they send).
    public let user: String
    private let upstream: Upstream
    private let listener: Int32
    private let state = Mutex(State())

    struct State {
        var partitioned = false
        var stopped = false
        var resetMarker: [UInt8]?
        var resetsAfterCommit = 0
        var links: [ObjectIdentifier: FaultProxyLink] = [:]
    }

    /// In front of the test cluster, wherever it listens.
    public convenience init(cluster: TestCluster) throws {
        let target = try TestPgBouncer.upstream(cluster)
        let upstream: Upstream = target.host.hasPrefix("/")
            ? .unixSocket(path: "\(target.host)/.s.PGSQL.\(target.port)")
            : .tcp(host: target.host, port: UInt16(target.port) ?? 5432)
        try self.init(upstream: upstream, user: target.user)
    }

    public init(upstream: Upstream, user: String) throws {
        self.upstream = upstream
        self.user = user
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw TestSupportError("proxy: socket failed (\(errno))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(listener, 64) == 0 else {
            close(listener)
            throw TestSupportError("proxy: cannot listen on 127.0.0.1 (\(errno))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// Where a client connects: `postgres://<user>@127.0.0.1:<port>/<database>`.
    public func url(database: String) -> String {
        "postgres://\(user)@127.0.0.1:\(port)/\(database)"
    }

    public func partition() { state.withLock { $0.partitioned = true } }
    public func heal() { state.withLock { $0.partitioned = false } }

    /// Resets every open connection now.
    public func resetAll() {
        let links = state.withLock { Array($0.links.values) }
        links.forEach { $0.reset() }
    }

    /// Arms a one-shot reset: see the type's comment.
    public func resetAfterCommit(marker: String) {
        state.withLock { $0.resetMarker = Array(marker.utf8) }
    }

    /// How many connections `resetAfterCommit` has reset.
    public var resetsAfterCommit: Int { state.withLock { $0.resetsAfterCommit } }

    public func stop() {
        let links = state.withLock { state -> [FaultProxyLink] in
            guard !state.stopped else { return [] }
            state.stopped = true
            return Array(state.links.values)
        }
        links.forEach { $0.reset() }
    }

    // MARK: Internals, used by FaultProxyLink

    var isPartitioned: Bool { state.withLock { $0.partitioned } }
    var isStopped: Bool { state.withLock { $0.stopped } }
    var armedMarker: [UInt8]? { state.withLock { $0.resetMarker } }

    /// The link that saw the marker claims the one-shot reset (false when another did first).
    func claimResetAfterCommit() -> Bool {
        state.withLock { state in
            guard state.resetMarker != nil else { return false }
            state.resetMarker = nil
            state.resetsAfterCommit += 1
            return true
        }
    }

    func forget(_ link: FaultProxyLink) { _ = state.withLock { $0.links.removeValue(forKey: ObjectIdentifier(link)) } }

    private func acceptLoop() {
        defer { close(listener) }
        while !isStopped {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            guard let server = connectUpstream() else {
                close(client)
                continue
            }
            let link = FaultProxyLink(client: client, server: server, proxy: self)
            let stopped = state.withLock { state -> Bool in
                if !state.stopped { state.links[ObjectIdentifier(link)] = link }
                return state.stopped
            }
            if stopped { link.reset(); return }
            Thread { link.run() }.start()
        }
    }

    private func connectUpstream() -> Int32? {
        switch upstream {
        case .unixSocket(let path):
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { return nil }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { close(descriptor); return nil }
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                buffer.copyBytes(from: bytes)
                buffer[bytes.count] = 0
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else { close(descriptor); return nil }
            return descriptor
        case .tcp(let host, let port):
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { return nil }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr(host)
            address.sin_port = port.bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { close(descriptor); return nil }
            return descriptor
        }
    }
}
