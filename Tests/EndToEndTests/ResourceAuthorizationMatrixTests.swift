import Foundation
import Testing

/// contract §2 over the real HTTP API: every role × resource × operation answers exactly the
/// expected status, denied writes change nothing, and lists never contain invisible rows.
///
/// The scene: listing L (owner, staff) with task T and activity A declared by `declarer` and
/// claimed by `claimer`; `stranger` is a realtor with no relation. The expectations below are
/// written out by hand from contract §2 and 3 (not computed by the code under test).
@Suite struct ResourceAuthorizationMatrixTests {
    enum Resource: String, CaseIterable, CustomTestStringConvertible {
        case listing, task, activity
        var testDescription: String { rawValue }
        var path: String { self == .listing ? "/v1/listings" : self == .task ? "/v1/tasks" : "/v1/activities" }
        var table: String { self == .listing ? "listings" : self == .task ? "tasks" : "activities" }
    }

    enum Operation: String, CaseIterable, CustomTestStringConvertible {
        case list, get, create, patch, put, delete, claim, release
        var testDescription: String { rawValue }
    }

    typealias Role = ResourceWorld.Role

    static let cases: [(Resource, Operation)] = Resource.allCases.flatMap { resource in
        Operation.allCases.filter { resource != .listing || ($0 != .claim && $0 != .release) }.map { (resource, $0) }
    }

    /// The status contract §2/3 demand.
    static func expected(_ resource: Resource, _ operation: Operation, _ role: Role) -> Int {
        let visible = role != .stranger
        switch (resource, operation) {
        case (_, .list):
            return 200
        case (_, .get):
            return visible ? 200 : 404
        case (.listing, .create):
            return 201
        case (_, .create):
            // The work item names listing L, which the stranger cannot see.
            return visible ? 201 : 422
        case (.listing, .patch), (.listing, .put):
            return [.admin, .owner, .staff].contains(role) ? 200 : visible ? 403 : 404
        case (.listing, .delete):
            return [.admin, .owner].contains(role) ? 200 : visible ? 403 : 404
        case (_, .patch), (_, .put):
            return visible ? 200 : 404
        case (_, .delete):
            return [.admin, .owner, .declarer].contains(role) ? 200 : visible ? 403 : 404
        case (_, .claim):
            // Claimed by `claimer`: re-claiming is a no-op, everyone else who sees it conflicts.
            return role == .claimer ? 200 : visible ? 409 : 404
        case (_, .release):
            return [.admin, .claimer].contains(role) ? 200 : visible ? 403 : 404
        }
    }

    @Test(arguments: cases)
    func operationAnswersTheSpecifiedStatusForEveryRole(_ resource: Resource, _ operation: Operation) throws {
        let world = try ResourceWorld()
        for role in Role.allCases {
            let scene = try world.scene()
            let id = resource == .listing ? scene.listing : resource == .task ? scene.task : scene.activity
            let response = try perform(operation, on: resource, id: id, scene: scene, as: role, world: world)
            let expected = Self.expected(resource, operation, role)
            #expect(response.status == expected, "\(role) \(operation) \(resource): \(String(decoding: response.body, as: UTF8.self))")
            switch expected {
            case 403: #expect(response.json?["code"] as? String == "forbidden")
            case 404: #expect(response.json?["code"] as? String == "not_found")
            case 409: #expect(response.json?["code"] as? String == "claim_conflict")
            default: break
            }
            if expected >= 400, operation != .create {
                #expect(try world.count("SELECT version FROM \(unsafeSQL: resource.table) WHERE id = \(id)::uuid") == 1,
                        "a refused \(operation) by \(role) changed the row")
            }
            if operation == .list {
                let ids = ResourceWorld.ids(in: response)
                #expect(ids.contains(id) == (role != .stranger), "\(role) list")
                let all = try world.request("GET", "\(resource.path)?include_deleted=true&limit=500", as: role)
                #expect(ResourceWorld.ids(in: all).contains(id) == (role != .stranger))
            }
        }
    }

    func perform(_ operation: Operation, on resource: Resource, id: String, scene: ResourceWorld.Scene,
                 as role: Role, world: ResourceWorld) throws -> TestHTTPClient.Response {
        let item = "\(resource.path)/\(id)"
        switch operation {
        case .list:
            return try world.request("GET", "\(resource.path)?limit=500", as: role)
        case .get:
            return try world.request("GET", item, as: role)
        case .create:
            let body: [String: Any] = resource == .listing ? ["address": "2 Side St"] : ["title": "New", "listing_id": scene.listing]
            return try world.request("POST", resource.path, as: role, json: body)
        case .patch:
            return try world.request("PATCH", item, as: role, json: resource == .listing ? ["city": "Halifax"] : ["title": "Renamed"])
        case .put:
            let body: [String: Any] = resource == .listing
                ? ["address": "1 Main St", "city": "Halifax", "assigned_staff": world.id(.staff)]
                : ["title": "Replaced", "listing_id": scene.listing]
            return try world.request("PUT", item, as: role, json: body)
        case .delete:
            return try world.request("DELETE", item, as: role)
        case .claim:
            return try world.request("POST", "\(item)/claim", as: role)
        case .release:
            return try world.request("DELETE", "\(item)/claim", as: role)
        }
    }
}
