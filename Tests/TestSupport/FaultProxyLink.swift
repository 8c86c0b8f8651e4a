import Foundation
import Synchronization

/// One proxied connection of a `FaultProxy`: one thread moves bytes both ways, unless the
/// proxy is partitioned (then nothing is read, so nothing moves, and the sockets stay open).
final class FaultProxyLink: @unchecked Sendable {
    private let client: Int32
    private let server: Int32
    private unowned let proxy: FaultProxy
    private let resetRequested = Atomic(false)
    /// The client sent the armed marker: reset when its transaction has committed.
    private var armed = false
    /// The end of what the client sent last, so a marker split between two reads is found.
    private var clientTail: [UInt8] = []

    /// PostgreSQL's ReadyForQuery with transaction status idle: whatever ran is committed.
    static let readyIdle: [UInt8] = [0x5A, 0, 0, 0, 5, 0x49]

    init(client: Int32, server: Int32, proxy: FaultProxy) {
        self.client = client
        self.server = server
        self.proxy = proxy
    }

    /// Asks the link's thread to reset both sockets (within its 50 ms poll).
    func reset() { resetRequested.store(true, ordering: .relaxed) }

    func run() {
        defer {
            abort()
            proxy.forget(self)
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !resetRequested.load(ordering: .relaxed) {
            if proxy.isPartitioned {
                usleep(50_000)
                continue
            }
            var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
            guard poll(&descriptors, 2, 50) >= 0 else { return }
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                // A partition that began during poll: leave the bytes unread.
                if proxy.isPartitioned { break }
                let fromClient = index == 0
                let count = read(descriptor.fd, &buffer, buffer.count)
                guard count > 0 else { return }
                let chunk = Array(buffer[0..<count])
                if fromClient {
                    noteClientBytes(chunk)
                } else if armed && Self.contains(chunk, Self.readyIdle) && proxy.claimResetAfterCommit() {
                    return
                }
                guard writeAll(chunk, to: fromClient ? server : client) else { return }
            }
        }
    }

    private func noteClientBytes(_ chunk: [UInt8]) {
        guard !armed, let marker = proxy.armedMarker else { return }
        let window = clientTail + chunk
        if Self.contains(window, marker) { armed = true }
        clientTail = Array(window.suffix(max(0, marker.count - 1)))
    }

    private func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Closes both sockets with a reset (SO_LINGER 0) rather than an orderly FIN.
    private func abort() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        for descriptor in [client, server] {
            setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(descriptor)
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}
