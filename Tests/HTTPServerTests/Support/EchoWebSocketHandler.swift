import Foundation
import Glibc
import HTTPServer
import Synchronization

/// A test-only handler: echoes text and binary messages (each as it came); `close-me` makes
/// the server close (1000 "bye"); `flood` (`flood-binary`) sends 1 KiB text (binary) messages
/// until `send` refuses (or 64 MiB), recording how much it took.
final class EchoWebSocketHandler: WebSocketHandler {
    struct Record {
        var outbound: (any WebSocketOutbound)?
        var opened = 0
        var received: [String] = []
        var receivedBinary: [[UInt8]] = []
        var closedCodes: [WebSocketCloseCode?] = []
        var floodAccepted = 0
        var floodRefused = false
    }

    let record = Mutex(Record())

    func opened(_ outbound: any WebSocketOutbound) {
        record.withLock {
            $0.outbound = outbound
            $0.opened += 1
        }
    }

    func received(text: String) {
        let outbound = record.withLock { state -> (any WebSocketOutbound)? in
            state.received.append(text)
            return state.outbound
        }
        guard let outbound else { return }
        switch text {
        case "close-me":
            outbound.close(code: .normal, reason: "bye")
        case "threads":
            // 8 threads × 250 messages at once: `send` from any thread, each thread's order kept.
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for index in 0..<250 { outbound.send(text: "t\(thread)-\(index)") }
            }
        case "flood", "flood-binary":
            let binary = text == "flood-binary"
            let message = [UInt8](repeating: UInt8(ascii: "x"), count: 1024)
            let messageText = String(decoding: message, as: UTF8.self)
            var accepted = 0
            var refused = false
            while accepted < 64 << 20 {
                let sent = binary ? outbound.send(binary: message) : outbound.send(text: messageText)
                guard sent else { refused = true; break }
                accepted += message.count
            }
            record.withLock { [accepted, refused] in
                $0.floodAccepted = accepted
                $0.floodRefused = refused
            }
        default:
            outbound.send(text: text)
        }
    }

    func received(binary: [UInt8]) {
        let outbound = record.withLock { state -> (any WebSocketOutbound)? in
            state.receivedBinary.append(binary)
            return state.outbound
        }
        outbound?.send(binary: binary)
    }

    func closed(code: WebSocketCloseCode?) {
        record.withLock { $0.closedCodes.append(code) }
    }

    /// Waits (up to `seconds`) until `closed` ran; returns the codes it got.
    func waitUntilClosed(seconds: Double = 5) -> [WebSocketCloseCode?] {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            let codes = record.withLock { $0.closedCodes }
            if !codes.isEmpty { return codes }
            usleepMillis(5)
        }
        return record.withLock { $0.closedCodes }
    }
}

func usleepMillis(_ ms: Int) {
    var spec = timespec(tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000)
    nanosleep(&spec, nil)
}
