import Foundation
import Testing

/// Admin versus realtor on every user-management route, and deactivation.
@Suite struct AuthUserManagementTests {
    enum Route: String, CaseIterable {
        case listUsers, getUser, createUser, patchUser
    }

    @Test(arguments: Route.allCases, ["admin", "realtor"])
    func userRoutesAnswerByRole(_ route: Route, role: String) throws {
        let app = try AuthTestServer()
        let adminTokens = try app.login()
        let otherID = try app.createRealtor("other@example.com", adminToken: adminTokens.access)
        let tokens: AuthTestServer.Tokens
        if role == "admin" {
            tokens = adminTokens
        } else {
            _ = try app.createRealtor("realtor@example.com", adminToken: adminTokens.access)
            tokens = try app.login("realtor@example.com")
        }
        let response: TestHTTPClient.Response
        let expected: Int
        switch route {
        case .listUsers:
            response = try app.request("GET", "/v1/users", token: tokens.access)
            expected = 200
        case .getUser:
            response = try app.request("GET", "/v1/users/\(otherID)", token: tokens.access)
            expected = 200
        case .createUser:
            response = try app.request("POST", "/v1/users", token: tokens.access,
                                       json: ["email": "new@example.com", "name": "New", "user_type": "realtor",
                                              "password": AuthTestServer.password])
            expected = role == "admin" ? 201 : 403
        case .patchUser:
            response = try app.request("PATCH", "/v1/users/\(otherID)", token: tokens.access,
                                       json: ["name": "Renamed", "user_type": "admin"])
            expected = role == "admin" ? 200 : 403
        }
        #expect(response.status == expected)
        if expected == 403 { #expect(response.json?["code"] as? String == "forbidden") }
        if route == .createUser, expected == 201 {
            let id = try #require(response.json?["id"] as? String)
            #expect(response.header("Location") == "/v1/users/\(id)")
        }
    }

    @Test func createUserWithDuplicateEmailInAnyCaseAnswers409EmailTaken() throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        _ = try app.createRealtor("dup@example.com", adminToken: tokens.access)
        let again = try app.request("POST", "/v1/users", token: tokens.access,
                                    json: ["email": "DUP@Example.com", "name": "Dup", "user_type": "realtor",
                                           "password": AuthTestServer.password])
        #expect(again.status == 409)
        #expect(again.json?["code"] as? String == "email_taken")
    }

    @Test func createUserWithInvalidFieldsListsEachField() throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let response = try app.request("POST", "/v1/users", token: tokens.access,
                                       json: ["email": "nope", "name": " ", "user_type": "owner", "password": "short"])
        #expect(response.status == 422)
        let fields = Set(((response.json?["details"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String })
        #expect(fields == ["email", "name", "user_type", "password"])
    }

    @Test func unknownUserAnswers404() throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        #expect(try app.request("GET", "/v1/users/\(UUID().uuidString)", token: tokens.access).status == 404)
        #expect(try app.request("GET", "/v1/users/not-a-uuid", token: tokens.access).status == 404)
        #expect(try app.request("PATCH", "/v1/users/\(UUID().uuidString)", token: tokens.access, json: ["name": "x"]).status == 404)
    }

    @Test func deactivationRevokesSessionsAndKeysBlocksLoginAndHidesUserFromRealtors() throws {
        let app = try AuthTestServer()
        let admin = try app.login()
        let victimID = try app.createRealtor("leaver@example.com", adminToken: admin.access)
        _ = try app.createRealtor("stayer@example.com", adminToken: admin.access)
        let victim = try app.login("leaver@example.com")
        let key = try #require(try app.request("POST", "/v1/api-keys", token: victim.access, json: ["name": "ci"]).json?["key"] as? String)
        #expect(try app.request("GET", "/v1/me", token: key).status == 200)

        let deactivated = try app.request("PATCH", "/v1/users/\(victimID)", token: admin.access, json: ["deactivated": true])
        #expect(deactivated.status == 200)
        #expect(deactivated.json?["deactivated_at"] is String)

        #expect(try app.request("GET", "/v1/me", token: victim.access).status == 401)
        #expect(try app.request("GET", "/v1/me", token: key).status == 401)
        #expect(try app.request("POST", "/v1/auth/refresh", json: ["refresh_token": victim.refresh]).status == 401)
        let login = try app.request("POST", "/v1/auth/login", json: ["email": "leaver@example.com", "password": AuthTestServer.password])
        #expect(login.status == 401)
        #expect(login.json?["code"] as? String == "invalid_credentials")

        let realtor = try app.login("stayer@example.com")
        #expect(try app.request("GET", "/v1/users/\(victimID)", token: realtor.access).status == 404)
        let listed = try app.request("GET", "/v1/users", token: realtor.access).json?["items"] as? [[String: Any]] ?? []
        #expect(!listed.contains { $0["id"] as? String == victimID })
        #expect(try app.request("GET", "/v1/users/\(victimID)", token: admin.access).status == 200)

        #expect(try app.request("PATCH", "/v1/users/\(victimID)", token: admin.access, json: ["deactivated": false]).status == 200)
        _ = try app.login("leaver@example.com")
    }

    @Test func adminCannotDeactivateThemselves() throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let response = try app.request("PATCH", "/v1/users/\(app.admin.id.uuidString)", token: tokens.access,
                                       json: ["deactivated": true])
        #expect(response.status == 422)
    }
}
