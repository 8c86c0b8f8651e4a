import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct ListenerTests {
    let db: TestDatabase

    init() throws {
        db = try TestDatabase.create()
    }

    private func makeListener(_ inbox: Inbox, applicationName: String) throws -> PostgresListener {
        var configuration = PostgresConnection.Configuration(conninfo: db.conninfo)
        configuration.applicationName = applicationName
        return try PostgresListener(
            configuration: configuration,
            channels: ["task_changes", "Odd \"Channel\""],
            onReconnect: { inbox.reconnected() },
            onNotification: { channel, payload in inbox.add(channel, payload) })
    }

    @Test func notificationsAreDeliveredWithChannelAndPayload() throws {
        let inbox = Inbox()
        let listener = try makeListener(inbox, applicationName: "listener-delivery")
        listener.start()
        defer { listener.stop() }
        #expect(listener.waitUntilListening(timeout: .seconds(10)))
        try db.pool.notify(channel: "task_changes", payload: "42")
        try db.pool.notify(channel: "Odd \"Channel\"", payload: "ünïcode 🚀")
        try db.pool.notify(channel: "not_listened", payload: "x")
        #expect(inbox.waitForCount(2, timeout: 10))
        #expect(inbox.messages.prefix(2) == [["task_changes", "42"], ["Odd \"Channel\"", "ünïcode 🚀"]])
    }

    @Test func listenerReconnectsAfterBackendIsTerminated() throws {
        let inbox = Inbox()
        let name = "listener-reconnect-\(UUID().uuidString.prefix(8))"
        let listener = try makeListener(inbox, applicationName: name)
        listener.start()
        defer { listener.stop() }
        #expect(listener.waitUntilListening(timeout: .seconds(10)))
        let killed = try db.pool.query(
            "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = \(name)")
        #expect(try killed.first?.decode("n", as: Int.self) == 1)
        #expect(inbox.waitForReconnect(timeout: 15))
        #expect(listener.waitUntilListening(timeout: .seconds(10)))
        try db.pool.notify(channel: "task_changes", payload: "after")
        #expect(inbox.waitForCount(1, timeout: 10))
        #expect(inbox.messages.first == ["task_changes", "after"])
    }

    @Test func stopJoinsThreadAndEndsListening() throws {
        let inbox = Inbox()
        let listener = try makeListener(inbox, applicationName: "listener-stop")
        listener.start()
        #expect(listener.waitUntilListening(timeout: .seconds(10)))
        listener.stop()
        #expect(!listener.isListening)
        try db.pool.notify(channel: "task_changes", payload: "late")
        Thread.sleep(forTimeInterval: 0.1)
        #expect(inbox.messages.isEmpty)
    }
}

/// Collects listener callbacks from the listener thread.
final class Inbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var received: [[String]] = []
    private var reconnects = 0

    func add(_ channel: String, _ payload: String) {
        condition.lock()
        received.append([channel, payload])
        condition.broadcast()
        condition.unlock()
    }

    func reconnected() {
        condition.lock()
        reconnects += 1
        condition.broadcast()
        condition.unlock()
    }

    var messages: [[String]] {
        condition.lock()
        defer { condition.unlock() }
        return received
    }

    func waitForCount(_ count: Int, timeout: TimeInterval) -> Bool {
        wait(timeout) { self.received.count >= count }
    }

    func waitForReconnect(timeout: TimeInterval) -> Bool {
        wait(timeout) { self.reconnects > 0 }
    }

    private func wait(_ timeout: TimeInterval, until done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !done() {
            if !condition.wait(until: deadline) { return done() }
        }
        return true
    }
}
