import Foundation
import Testing

/// `GET /v1/{listings|tasks|activities}` (contract §5): keyset pages, filters, bad parameters.
@Suite struct ResourceListTests {
    @Test func pagesWalkEveryVisibleRowOnceInUpdateOrder() throws {
        let world = try ResourceWorld(extraRoles: [.owner])
        var created: [String] = []
        for index in 0..<7 {
            let response = try world.request("POST", "/v1/tasks", as: .owner, json: ["title": "Task \(index)"])
            created.append(try #require(response.json?["id"] as? String))
        }
        // Touching the first moves it to the end of the (updated_at, id) order.
        _ = try world.request("PATCH", "/v1/tasks/\(created[0])", as: .owner, json: ["priority": "low"])
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let query = cursor.map { "&cursor=\($0)" } ?? ""
            let page = try world.request("GET", "/v1/tasks?limit=3\(query)", as: .owner)
            #expect(page.status == 200)
            seen += ResourceWorld.ids(in: page)
            cursor = page.json?["next_cursor"] as? String
            pages += 1
        } while cursor != nil && pages < 10
        #expect(seen == Array(created.dropFirst()) + [created[0]])
        #expect(pages == 3)
    }

    @Test func filtersSelectByStatusClaimerListingAndUpdateTime() throws {
        let world = try ResourceWorld()
        let scene = try world.scene()
        let other = try world.scene(claimed: false)
        let before = try #require(try world.request("GET", "/v1/tasks/\(other.task)", as: .admin).json?["updated_at"] as? String)
        _ = try world.request("PATCH", "/v1/tasks/\(other.task)", as: .admin, json: ["status": "in_progress"])
        func ids(_ query: String, as role: ResourceWorld.Role = .admin) throws -> Set<String> {
            let response = try world.request("GET", "/v1/tasks?\(query)", as: role)
            #expect(response.status == 200, "\(query)")
            return Set(ResourceWorld.ids(in: response))
        }
        #expect(try ids("status=in_progress") == [other.task])
        #expect(try ids("status=open,in_progress") == [scene.task, other.task])
        #expect(try ids("claimed_by=none") == [other.task])
        #expect(try ids("claimed_by=\(world.id(.claimer))") == [scene.task])
        #expect(try ids("claimed_by=me", as: .claimer) == [scene.task])
        #expect(try ids("listing_id=\(other.listing)") == [other.task])
        #expect(try ids("updated_since=\(before)") == [other.task])
    }

    @Test(arguments: ["limit=0", "limit=501", "limit=x", "status=sold", "include_deleted=yes", "updated_since=yesterday",
                      "updated_since=2026-02-30T00:00:00Z", "updated_since=2026-04-31T00:00:00Z", "updated_since=2026-02-29T00:00:00Z",
                      "claimed_by=someone", "listing_id=1", "cursor=bm90LWpzb24"])
    func badListParameterAnswers400(_ query: String) throws {
        let world = try ResourceWorld(extraRoles: [])
        let response = try world.request("GET", "/v1/tasks?\(query)", as: .admin)
        #expect(response.status == 400)
        let code = response.json?["code"] as? String
        #expect(code == (query.hasPrefix("cursor") ? "invalid_cursor" : "invalid_parameter"))
    }

    @Test func historyIsPagedOldestFirst() throws {
        let world = try ResourceWorld(extraRoles: [.owner])
        let created = try world.request("POST", "/v1/tasks", as: .owner, json: ["title": "Flip"])
        let id = try #require(created.json?["id"] as? String)
        for status in ["completed", "open", "completed"] {
            _ = try world.request("PATCH", "/v1/tasks/\(id)", as: .owner, json: ["status": status])
        }
        let first = try world.request("GET", "/v1/tasks/\(id)/status-changes?limit=2", as: .owner)
        let cursor = try #require(first.json?["next_cursor"] as? String)
        let second = try world.request("GET", "/v1/tasks/\(id)/status-changes?limit=2&cursor=\(cursor)", as: .owner)
        let statuses = (((first.json?["items"] as? [[String: Any]]) ?? []) + ((second.json?["items"] as? [[String: Any]]) ?? []))
            .compactMap { $0["new_status"] as? String }
        #expect(statuses == ["open", "completed", "open", "completed"])
        #expect(second.json?["next_cursor"] is NSNull)
    }
}
