@testable import Console
import Foundation
import RouteKit
import Testing

/// A person's recent failed requests: recorded by the API's middleware for the caller the
/// request authenticated as, shown on their person page and their Sync health page, by route
/// pattern and error code, never the raw path or anything of the body.
@Suite struct ConsoleFailuresTests {
    @Test func aRealtorsFailedRequestsAppearOnTheirPagesByRouteAndCode() throws {
        let app = try AuthTestServer(withConsole: true)
        let admin = try app.login()
        let realtorID = try app.createRealtor("rita@example.com", adminToken: admin.access)
        let realtor = try app.login("rita@example.com")
        let missing = UUID().uuidString.lowercased()
        let notFound = try app.request("GET", "/v1/tasks/\(missing)", token: realtor.access)
        #expect(notFound.status == 404)
        let secret = "body-secret-\(UUID().uuidString)"
        let invalid = try app.request("POST", "/v1/tasks", token: realtor.access, json: ["title": secret, "priority": "whenever"])
        #expect(invalid.status == 422)
        #expect(try app.request("GET", "/v1/me", token: realtor.access).status == 200)

        let browser = ConsoleSession(app)
        try browser.signIn()
        for path in ["/console/people/\(realtorID)", "/console/sync/\(realtorID)"] {
            let html = ConsoleSession.text(try browser.get(path))
            #expect(html.contains("Recent failed requests"), "\(path)")
            #expect(html.contains("GET /v1/tasks/{id}") && html.contains("not_found"), "\(path)")
            #expect(html.contains("POST /v1/tasks") && html.contains("validation_failed"), "\(path)")
            #expect(!html.contains(missing) && !html.contains(secret), "the route's pattern and no body: \(path)")
            #expect(notFound.header("X-Request-Id").map(html.contains) == true, "the request id: \(path)")
        }
        // The admin's own failures are theirs: none of the realtor's show on the admin's page.
        let adminPage = ConsoleSession.text(try browser.get("/console/people/\(app.admin.id.uuidString.lowercased())"))
        #expect(adminPage.contains("No failed request of"))
    }

    @Test func theRingIsBoundedPerPersonAndInPeople() {
        let ring = FailureRing(perPerson: 3, people: 2)
        func entry(_ second: Int) -> FailureRing.Entry {
            FailureRing.Entry(at: Date(timeIntervalSince1970: Double(second)), method: "GET", route: "/v1/tasks/{id}", status: 404,
                              errorCode: "not_found", requestID: "r\(second)")
        }
        let (a, b, c) = (UUID(), UUID(), UUID())
        for second in 1...5 { ring.record(userID: a.uuidString.lowercased(), entry(second)) }
        #expect(ring.recent(userID: a).map(\.requestID) == ["r5", "r4", "r3"], "newest first, at most perPerson")
        ring.record(userID: b.uuidString.lowercased(), entry(6))
        ring.record(userID: c.uuidString.lowercased(), entry(7))
        #expect(ring.recent(userID: a).isEmpty, "the person whose last failure is oldest is forgotten first")
        #expect(ring.recent(userID: b).count == 1 && ring.recent(userID: c).count == 1)
    }
}
