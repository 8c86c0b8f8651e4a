import CLinuxSys
import Glibc
import HTTP1

/// A connection's socket I/O on the loop: one bounded read per readiness event into the state
/// machine, writing what it queued, and epoll interest re-armed to what it wants next.
extension EventLoop {
    func handle(_ flags: UInt32, on record: ConnectionRecord, buffer: UnsafeMutableRawBufferPointer) {
        if flags & EPOLLERR.rawValue != 0 { return closeConnection(record) }
        if flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue) != 0 {
            guard read(record, buffer: buffer, flags: flags) else { return }
        }
        service(record)
    }

    /// One read. Returns false if the connection was closed.
    private func read(_ record: ConnectionRecord, buffer: UnsafeMutableRawBufferPointer, flags: UInt32) -> Bool {
        if !record.machine.wantsRead && !record.machine.lingering {
            // Not reading (busy with a full buffer, or the peer already half-closed): RDHUP/HUP
            // only tell us the peer is gone. (EPOLLIN can still show up here from an event
            // reported before interest changed; it means nothing now.)
            guard flags & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue) != 0 else { return true }
            if flags & EPOLLHUP.rawValue != 0 || record.deferred != nil
                || (!record.machine.peerClosed && record.machine.receivedEOF()) {
                closeConnection(record)
                return false
            }
            return true
        }
        let received = recv(record.fd, buffer.baseAddress, buffer.count, 0)
        if received > 0, let session = record.webSocket, session.isDecoding {
            receiveWebSocket(UnsafeRawBufferPointer(rebasing: buffer[..<received]), on: record, session: session)
            return true
        }
        if received > 0 {
            if let dispatch = record.machine.receive(UnsafeRawBufferPointer(rebasing: buffer[..<received]), env: env) {
                self.dispatch(dispatch, on: record)
            }
            return true
        }
        if received == 0 {
            if record.deferred != nil || record.machine.receivedEOF() {
                closeConnection(record)
                return false
            }
            return true
        }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return true }
        closeConnection(record)
        return false
    }

    /// Writes what is queued, half-closes finished connections, and re-arms epoll interest.
    func service(_ record: ConnectionRecord) {
        while record.machine.hasPendingOutput {
            let sent = record.machine.withPendingOutput { pending in
                send(record.fd, pending.baseAddress, pending.count, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                record.machine.didWrite(sent)
            } else if sent < 0 && errno == EINTR {
                continue
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                break
            } else {
                return closeConnection(record)
            }
        }
        if let stream = record.stream { noteStreamProgress(record, stream) }
        if let session = record.webSocket { noteWebSocketProgress(record, session) }
        if let next = record.machine.resumeParsingIfPossible(env: env) {
            dispatch(next, on: record)
            return service(record)
        }
        if (shuttingDown && record.machine.isIdle && record.hasCarriedRequest) || record.machine.finishedAfterPeerClose {
            return closeConnection(record)
        }
        if record.machine.readyToLinger {
            if record.machine.peerClosed { return closeConnection(record) }
            shutdown(record.fd, Int32(SHUT_WR))
            record.machine.startLingering(env: env)
        }
        var wanted: UInt32 = 0
        if record.machine.wantsRead || record.machine.lingering {
            wanted |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        } else if !record.machine.peerClosed {
            wanted |= EPOLLRDHUP.rawValue // still notice a disconnect while busy (cancels deferred)
        }
        if record.machine.hasPendingOutput { wanted |= EPOLLOUT.rawValue }
        if wanted != record.interest {
            record.interest = wanted
            var event = epoll_event()
            event.events = wanted
            event.data.u64 = record.id
            epoll_ctl(epollFD, EPOLL_CTL_MOD, record.fd, &event)
        }
    }
}
