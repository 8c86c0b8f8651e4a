import Foundation
import Testing

/// Many devices owed at once travel as concurrent HTTP/2 streams on the one kept connection:
/// a provider far away then costs a batch one round trip, not one per device.
@Suite(.serialized) struct PushBatchTests {
    @Test func devicesOwedAtOnceShareOneConnectionAsConcurrentStreams() throws {
        let world = try PushWorld()
        let tokens = (1...20).map { String(format: "cccc%04d", $0) + String(repeating: "c", count: 24) }
        for token in tokens {
            try world.app.database.pool.execute("""
                INSERT INTO push_devices (user_id, platform, token, app_id) VALUES (\(world.b.id), 'ios', \(token), 'com.example.dispatch')
                """)
        }
        // Each answer comes a while after its request, as from Apple across a network.
        let owed = tokens + [PushWorld.tokenA, PushWorld.tokenB]
        try world.fake.script(Dictionary(uniqueKeysWithValues: owed.map { ($0, ["wait-300"]) }))
        // B owns the listing and A staffs it: all 22 devices are in the change's audience.
        try world.patchTask("Seen by 22 devices")
        try world.settle()
        #expect(try world.wait { try world.fake.requests().count == 22 })
        let requests = try world.fake.requests()
        #expect(Set(requests.map(\.token)) == Set(owed))
        #expect(requests.allSatisfy { $0.status == 200 && $0.jwt_problem == nil })
        #expect(Set(requests.map(\.session)) == [1], "more than one connection: \(Set(requests.map(\.session)))")
        #expect((requests.map(\.in_flight).max() ?? 0) > 1, "one stream at a time: in flight \(requests.map(\.in_flight))")
        #expect(try world.wait {
            try world.scalar("SELECT count(*)::text FROM push_outbox WHERE sent_at IS NOT NULL AND last_status = 200") == "22"
        })
    }
}
