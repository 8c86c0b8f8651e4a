import Foundation
import Synchronization
import Testing

/// Uploads racing for one new name: the insert of the name is the arbiter, so exactly one
/// creator wins and every other gets Storage's Duplicate (HTTP 400, statusCode "409"); with
/// `x-upsert` the owner's racing overwrites all succeed and the object keeps one id.
@Suite struct StorageRaceTests {
    static let uploaders = 12

    func race(_ world: StorageWorld, name: String, bodies: [[UInt8]], headers: [String: String])
        -> [TestHTTPClient.Response?] {
        let responses = Mutex<[TestHTTPClient.Response?]>([])
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for body in bodies {
            group.enter()
            let client = world.app.client
            let allHeaders = headers.merging(["apikey": AuthTestServer.publishableKey, "Authorization": "Bearer \(world.rita)"]) { $1 }
            Thread {
                start.wait()
                let response = try? client.perform(method: "POST", path: "/storage/v1/object/avatars/\(name)",
                                                   headers: allHeaders, body: body)
                responses.withLock { $0.append(response) }
                group.leave()
            }.start()
        }
        for _ in bodies { start.signal() }
        group.wait()
        return responses.withLock { $0 }
    }

    @Test func concurrentCreatorsOfOneNameHaveExactlyOneWinner() throws {
        let world = try StorageWorld()
        let bodies = (0..<Self.uploaders).map { $0 % 2 == 0 ? StorageWorld.png : StorageWorld.jpeg }
        let responses = race(world, name: "race.png", bodies: bodies, headers: [:])
        let statuses = responses.map { $0?.status ?? -1 }
        #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses)")
        #expect(responses.filter { $0.map(StorageWorld.storageError)?.error == "Duplicate" }.count == Self.uploaders - 1)
        #expect(try world.objectCount == 1)
    }

    @Test func concurrentUpsertsKeepOneObjectAndItsId() throws {
        let world = try StorageWorld()
        let bodies = (0..<Self.uploaders).map { $0 % 2 == 0 ? StorageWorld.png : StorageWorld.jpeg }
        let responses = race(world, name: "upsert.png", bodies: bodies, headers: ["x-upsert": "true"])
        #expect(responses.allSatisfy { $0?.status == 200 }, "\(responses.map { $0?.status ?? -1 })")
        #expect(Set(responses.compactMap { $0?.json?["Id"] as? String }).count == 1)
        #expect(try world.objectCount == 1)
        let served = try world.publicGet("upsert.png").body
        #expect(served == StorageWorld.png || served == StorageWorld.jpeg)
    }
}
