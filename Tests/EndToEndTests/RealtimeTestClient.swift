@testable import API
@testable import Accounts
@testable import Resources
@testable import Sync
@testable import Realtime
@testable import Supabase
@testable import Operations
@testable import RouteKit
@testable import ServiceKit
import Foundation
import HTTPServer

/// A realtime connection driven in process: messages go straight to the protocol handler
/// and what it sends is collected by a fake outbound (the WebSocket transport's seam).
final class RealtimeTestClient: WebSocketOutbound, @unchecked Sendable {
    struct Message: CustomStringConvertible {
        let joinRef: String?
        let ref: String?
        let topic: String
        let event: String
        let payload: [String: Any]
        /// The frame's text as the server sent it (the client-shape tests decode it themselves).
        var text = ""
        var status: String? { payload["status"] as? String }
        var response: [String: Any]? { payload["response"] as? [String: Any] }
        var data: [String: Any]? { payload["data"] as? [String: Any] }
        var record: [String: Any]? { data?["record"] as? [String: Any] }
        var description: String { "\(event) \(topic) \(payload)" }
    }

    let connection: RealtimeConnection
    let serializer: PhoenixSerializer
    private let condition = NSCondition()
    private var inbox: [Message] = []
    /// Binary messages (vsn 2.0.0 user broadcasts), as supabase-swift decodes them.
    private var binaryInbox: [PhoenixBinaryClient.Received] = []
    private var refCount = 0
    private(set) var closedWith: (WebSocketCloseCode, String)?

    init(_ service: RealtimeService, vsn: String = "1.0.0") throws {
        guard let connection = service.connection(vsn: vsn) else { throw RealtimeTestError.unexpected("vsn \(vsn) refused") }
        self.connection = connection
        serializer = connection.serializer
        connection.opened(self)
    }

    deinit { connection.closed(code: .normal) }

    // MARK: WebSocketOutbound

    func send(text: String) -> Bool {
        guard let message = Self.decode(text, serializer) else { return false }
        condition.lock()
        inbox.append(message)
        condition.broadcast()
        condition.unlock()
        return true
    }

    func send(binary: [UInt8]) -> Bool {
        guard let message = try? PhoenixBinaryClient.decode(binary) else { return false }
        condition.lock()
        binaryInbox.append(message)
        condition.broadcast()
        condition.unlock()
        return true
    }

    func close(code: WebSocketCloseCode, reason: String) {
        condition.lock()
        closedWith = (code, reason)
        condition.broadcast()
        condition.unlock()
    }

    static func decode(_ text: String, _ serializer: PhoenixSerializer) -> Message? {
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { return nil }
        let fields: [Any]
        switch serializer {
        case .v1:
            guard let object = value as? [String: Any] else { return nil }
            fields = [object["join_ref"] ?? NSNull(), object["ref"] ?? NSNull(), object["topic"] ?? "", object["event"] ?? "", object["payload"] ?? [:]]
        case .v2:
            guard let array = value as? [Any], array.count == 5 else { return nil }
            fields = array
        }
        guard let topic = fields[2] as? String, let event = fields[3] as? String, let payload = fields[4] as? [String: Any] else { return nil }
        return Message(joinRef: fields[0] as? String, ref: fields[1] as? String, topic: topic, event: event, payload: payload,
                       text: text)
    }

    // MARK: Sending

    func nextRef() -> String {
        condition.lock()
        defer { condition.unlock() }
        refCount += 1
        return String(refCount)
    }

    /// Sends a message in the connection's format; returns its ref.
    @discardableResult
    func push(topic: String, event: String, payload: [String: Any], joinRef: String? = nil, ref: String? = nil) throws -> String {
        let ref = ref ?? nextRef()
        let object: Any = serializer == .v1
            ? ["join_ref": joinRef as Any? ?? NSNull(), "ref": ref, "topic": topic, "event": event, "payload": payload]
            : [joinRef as Any? ?? NSNull(), ref, topic, event, payload]
        connection.received(text: String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        return ref
    }

    func raw(_ text: String) { connection.received(text: text) }

    func raw(binary: [UInt8]) { connection.received(binary: binary) }

    /// Joins `realtime:<name>` and waits for the reply (and, with postgres_changes, the system
    /// message). `replayFrom`: a sync cursor to replay from (sent as the presence key).
    @discardableResult
    func join(_ name: String, token: String?, changes: [[String: Any]] = [], broadcast: [String: Any] = [:],
              replayFrom: String = "") throws -> Message {
        let ref = nextRef()
        let presence: [String: Any] = ["key": replayFrom]
        var payload: [String: Any] = ["config": ["postgres_changes": changes, "broadcast": broadcast, "presence": presence, "private": false]]
        if let token { payload["access_token"] = token }
        try push(topic: "realtime:\(name)", event: "phx_join", payload: payload, joinRef: ref, ref: ref)
        let reply = try next { $0.event == "phx_reply" && $0.ref == ref }
        if reply.status == "ok" && !changes.isEmpty {
            _ = try next { $0.event == "system" && $0.topic == "realtime:\(name)" }
        }
        return reply
    }

    // MARK: Receiving

    /// The first message (removed from the inbox) that satisfies `matching`, waiting up to `seconds`.
    func next(seconds: Double = 15, _ matching: (Message) -> Bool = { _ in true }) throws -> Message {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let index = inbox.firstIndex(where: matching) { return inbox.remove(at: index) }
            guard condition.wait(until: deadline) else {
                throw RealtimeTestError.unexpected("no matching message within \(seconds) s; inbox: \(inbox)")
            }
        }
    }

    /// The first binary message (removed from its inbox), waiting up to `seconds`.
    func nextBinary(seconds: Double = 15) throws -> PhoenixBinaryClient.Received {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while binaryInbox.isEmpty {
            guard condition.wait(until: deadline) else {
                throw RealtimeTestError.unexpected("no binary message within \(seconds) s; inbox: \(inbox)")
            }
        }
        return binaryInbox.removeFirst()
    }

    /// Binary messages received so far (left in their inbox).
    var receivedBinary: [PhoenixBinaryClient.Received] {
        condition.lock()
        defer { condition.unlock() }
        return binaryInbox
    }

    /// Every message received so far that satisfies `matching` (left in the inbox).
    func received(_ matching: (Message) -> Bool = { _ in true }) -> [Message] {
        condition.lock()
        defer { condition.unlock() }
        return inbox.filter(matching)
    }

    /// `postgres_changes` events whose record (or old record) has id `id`, waiting for one.
    func change(id: UUID, seconds: Double = 15) throws -> Message {
        try next(seconds: seconds) { Self.id(of: $0) == id.uuidString.lowercased() }
    }

    static func id(of message: Message) -> String? {
        guard message.event == "postgres_changes", let data = message.data else { return nil }
        return ((data["record"] as? [String: Any])?["id"] as? String) ?? ((data["old_record"] as? [String: Any])?["id"] as? String)
    }

    func waitForClose(seconds: Double = 10) throws -> (WebSocketCloseCode, String) {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while closedWith == nil {
            guard condition.wait(until: deadline) else { throw RealtimeTestError.unexpected("not closed") }
        }
        return closedWith ?? (.normal, "")
    }
}

enum RealtimeTestError: Error { case unexpected(String) }
