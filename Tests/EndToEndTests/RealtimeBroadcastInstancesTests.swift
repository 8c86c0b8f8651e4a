import Foundation
import Postgres
import Store
import Testing
import TestSupport

/// Realtime broadcast across instances (BroadcastBus): two `dispatchd serve` processes on one
/// database, a member of one topic on each. Broadcasts cross both ways, as text and binary,
/// small (inline NOTIFY) and large (stored, id notified); a sender never gets its own echo
/// back from PostgreSQL; and when one instance's LISTEN connection is terminated mid-stream,
/// what it misses is lost (documented), nothing arrives twice, and broadcasts flow again once
/// it has reconnected.
@Suite(.serialized) struct RealtimeBroadcastInstancesTests {
    static let key = "sb_publishable_broadcast-test-key-0123456789"
    static let listen = "LISTEN \"dispatch_broadcast\""

    static func listenerPIDs(_ pool: PostgresPool) throws -> Set<Int32> {
        Set(try pool.query("SELECT pid FROM pg_stat_activity WHERE query = \(Self.listen)").map { try $0.decode("pid", as: Int32.self) })
    }

    static func text(_ socket: RealtimeSocket, topic: String, ref: String, event: String, payload: [String: Any]) throws {
        try socket.push(joinRef: ref, ref: nil, topic: topic, event: "broadcast",
                        payload: ["type": "broadcast", "event": event, "payload": payload])
    }

    /// Broadcast payloads (`payload.payload`) of the text broadcasts arriving within `seconds`.
    static func received(_ socket: RealtimeSocket, seconds: Int) -> [[String: Any]] {
        socket.drain(seconds: seconds).compactMap { frame in
            guard case .text(let text) = frame,
                  let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any], array.count == 5,
                  array[3] as? String == "broadcast" else { return nil }
            return (array[4] as? [String: Any])?["payload"] as? [String: Any]
        }
    }

    @Test func broadcastsCrossInstancesOnceAndSurviveALostListener() throws {
        let database = try TestDatabase.create(poolSize: 2)
        let environment = ["DATABASE_URL": database.url, "JWT_SECRET": String(repeating: "b", count: 40), "PUBLISHABLE_KEY": Self.key,
                           "HOST": "127.0.0.1", "PORT": "0", "LOG_LEVEL": "critical"]
        let one = try ServedDispatchd(environment: environment), two = try ServedDispatchd(environment: environment)
        defer { _ = try? one.stop(); _ = try? two.stop() }
        let email = "bc-\(UUID().uuidString.prefix(8))@example.com".lowercased()
        let caster = try UserStore(pool: database.pool).create(email: email, name: "Caster", userType: .realtor,
                                                               passwordHash: try AuthTestServer.cheapHasher.hash(AuthTestServer.password))
        let token = try SyncPushCrashTests.login(email, port: one.port)
        // The user's own private topic (public broadcast is off by default): a phone and a
        // tablet of one user on two instances.
        let name = "user:\(caster.id.uuidString.lowercased())"
        let topic = "realtime:\(name)"

        let first = try RealtimeSocket(port: one.port, apikey: Self.key)
        let firstRef = try first.join(name, token: token, isPrivate: true)
        let firstListener = try Self.listenerPIDs(database.pool)
        let second = try RealtimeSocket(port: two.port, apikey: Self.key)
        let secondRef = try second.join(name, token: token, isPrivate: true)
        let secondListener = try #require(try Self.listenerPIDs(database.pool).subtracting(firstListener).first)

        // Text, one → two; nothing comes back to the sender (no self, echo dropped).
        try Self.text(first, topic: topic, ref: firstRef, event: "hello", payload: ["n": 1])
        let hello = try second.nextText { $0[3] as? String == "broadcast" }
        #expect((hello[4] as? [String: Any])?["event"] as? String == "hello")
        #expect(((hello[4] as? [String: Any])?["payload"] as? [String: Any])?["n"] as? Int == 1)

        // Binary, two → one: bytes as sent.
        let bytes: [UInt8] = [0, 1, 2, 255, 254, 10, 13]
        try second.send(binary: PhoenixBinaryClient.userBroadcastPush(joinRef: secondRef, ref: nil, topic: topic, event: "blob",
                                                                       json: false, payload: bytes))
        guard case .binary(let relayed) = try first.next() else {
            Issue.record("instance one should relay the binary broadcast as binary")
            return
        }
        let blob = try PhoenixBinaryClient.decode(relayed)
        #expect(blob.event == "blob" && !blob.json && blob.payload == bytes)

        // Large (over a NOTIFY payload): stored, its id notified, read by the other instance.
        let big = String(repeating: "x", count: 20_000)
        try Self.text(second, topic: topic, ref: secondRef, event: "big", payload: ["text": big])
        let large = try first.nextText { $0[3] as? String == "broadcast" }
        #expect(((large[4] as? [String: Any])?["payload"] as? [String: Any])?["text"] as? String == big)
        #expect(Self.received(first, seconds: 1).isEmpty && Self.received(second, seconds: 1).isEmpty, "an echo came back")

        // Instance two's LISTEN connection is terminated in the middle of a numbered stream.
        for sequence in 0..<10 {
            try Self.text(first, topic: topic, ref: firstRef, event: "seq", payload: ["n": sequence])
        }
        var numbers: [Int] = []
        while numbers.count < 10 {
            let message = try second.nextText { $0[3] as? String == "broadcast" }
            numbers += [((message[4] as? [String: Any])?["payload"] as? [String: Any])?["n"] as? Int ?? -1]
        }
        _ = try database.pool.query("SELECT pg_terminate_backend(\(secondListener))")
        for sequence in 10..<30 {
            try Self.text(first, topic: topic, ref: firstRef, event: "seq", payload: ["n": sequence])
            Thread.sleep(forTimeInterval: 0.05)
        }
        numbers += Self.received(second, seconds: 1).compactMap { $0["n"] as? Int }
        let deadline = Date().addingTimeInterval(10)
        var reconnected: Set<Int32> = []
        while reconnected.isEmpty, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            reconnected = try Self.listenerPIDs(database.pool).subtracting(firstListener).subtracting([secondListener])
        }
        #expect(!reconnected.isEmpty, "instance two never listened again")
        for sequence in 100..<105 {
            try Self.text(first, topic: topic, ref: firstRef, event: "seq", payload: ["n": sequence])
        }
        numbers += Self.received(second, seconds: 2).compactMap { $0["n"] as? Int }
        #expect(Array(numbers.prefix(10)) == Array(0..<10))
        #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count, "duplicated or reordered: \(numbers)")
        #expect(Array(numbers.suffix(5)) == Array(100..<105), "after the reconnect: \(numbers)")
    }
}
