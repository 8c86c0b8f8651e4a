import Foundation
import Testing

/// A parked long-poll's deadline answered from memory (ChangeHistory) instead of a page read:
/// only when nothing new can be visible to its user, so a change committed as the deadline
/// passes is in the answer or in the sync that follows it, never lost. Counters, not timings.
@Suite struct SyncWaiterDeadlineTests {
    @Test func expiredLongPollWithNothingNewIsAnsweredWithoutARead() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto")
        let sync = server.instances[0].sync
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        let since = try SyncIdleMemoryTests.syncUntilAnsweredFromMemory(server, rita, since: replica.since)
        // Otto's task wakes nobody's page (not rita's business), and the fanout reads past it.
        _ = try server.task(by: otto)
        let current = try SyncIdleMemoryTests.syncUntilAnsweredFromMemory(server, rita, since: since)
        let (readsBefore, memoryBefore) = (sync.waiterReads, sync.waiterAnswersFromMemory)

        let response = try server.sync(rita, since: current, wait: 1)
        #expect(response.status == 200)
        let json = try #require(response.json)
        for table in SyncReplica.tables { #expect((json[table] as? [Any])?.isEmpty == true, "\(table)") }
        #expect(sync.waiterAnswersFromMemory == memoryBefore + 1)
        #expect(sync.waiterReads == readsBefore)
        let metrics = String(decoding: try server.client.get("/metrics").body, as: UTF8.self)
        #expect(MetricsTests.sampleValue(metrics, "sync_waiter_memory_answers_total") == Double(memoryBefore + 1))
        // Its cursor is a real one: the next write is in the next sync from it.
        let task = try server.task(by: rita)
        let next = try server.sync(rita, since: try #require(json["next_since"] as? String))
        #expect(SyncIdleMemoryTests.ids(next, "tasks") == [task.uuidString.lowercased()])
    }

    /// Rita's task is written by plain SQL (it notifies inside its transaction, as any writer
    /// but dispatchd does) around the moment her long-poll expires, at a different offset each
    /// round. Whichever way each race goes, the task is in the long-poll's answer or in the
    /// very next sync from its cursor; and some rounds were answered from memory (on a loaded
    /// machine more rounds are run until one was, so the race is shown on that path too).
    @Test func changeCommittedAtTheDeadlineIsInTheAnswerOrTheNextSync() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let sync = server.instances[0].sync
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        var since = try SyncIdleMemoryTests.syncUntilAnsweredFromMemory(server, rita, since: replica.since)
        let memoryBefore = sync.waiterAnswersFromMemory
        var inAnswer = 0, inNextSync = 0, round = 0
        while round < 24 || (sync.waiterAnswersFromMemory == memoryBefore && round < 72) {
            defer { round += 1 }
            let parkedSince = since
            let request = SyncLiveTests.Background { try server.sync(rita, since: parkedSince, wait: 1) }
            try waitUntil("the request is parked") { sync.waiterCount == 1 }
            // 0.9 to 1.13 s after parking, 10 ms apart: before, during and after the deadline's
            // answer (1 s, plus up to SyncWaiters.deadlineBatching), finer than the fanout's
            // 20 ms coalescing, so some writes land between the last read and that answer.
            Thread.sleep(forTimeInterval: 0.9 + Double(round % 12) * 0.02 + (round >= 12 ? 0.01 : 0))
            let task = try server.task(by: rita).uuidString.lowercased()
            let answer = try request.join()
            #expect(answer.status == 200)
            let next = try #require(answer.json?["next_since"] as? String)
            if SyncIdleMemoryTests.ids(answer, "tasks").contains(task) {
                inAnswer += 1
                since = next
            } else {
                let following = try server.sync(rita, since: next)
                #expect(SyncIdleMemoryTests.ids(following, "tasks") == [task], "round \(round): the task was lost")
                inNextSync += 1
                since = try #require(following.json?["next_since"] as? String)
            }
            since = try SyncIdleMemoryTests.syncUntilAnsweredFromMemory(server, rita, since: since)
        }
        #expect(inAnswer + inNextSync == round)
        #expect(sync.waiterAnswersFromMemory > memoryBefore, "no deadline was answered from memory (in answer \(inAnswer), next \(inNextSync))")
    }
}
