import Foundation
import Testing

/// The hourly mail caps count per source and per address; the global ceiling is only a safety
/// valve, and administrators' invitations pass it. So people asking for codes from one place
/// cannot stop mail for everyone else.
@Suite struct EmailMailCapTests {
    static let attacker = "203.0.113.5"
    static let owner = "198.51.100.7"

    /// `count` realtors made by the admin; their addresses.
    static func realtors(_ server: MailAuthServer, _ count: Int, token: String) throws -> [String] {
        try (0..<count).map { index in
            let email = "agent\(index)@example.com"
            _ = try server.app.createRealtor(email, adminToken: token)
            return email
        }
    }

    @Test func nineAddressesAskingFromOneSourceCannotDenyRecoveryElsewhere() throws {
        // No per-address interval here: every request stands for one 60 s apart.
        let server = try MailAuthServer(hourlyLimit: 60)
        let admin = try server.app.login()
        let nine = try Self.realtors(server, 9, token: admin.access)
        let victim = "victim@example.com"
        _ = try server.app.createRealtor(victim, adminToken: admin.access)
        var refused = 0
        for _ in 0..<8 {
            for email in nine {
                let answer = try server.gotrue("POST", "/auth/v1/recover", json: ["email": email], from: Self.attacker)
                if answer.status == 429 { refused += 1 }
            }
        }
        #expect(refused > 0, "the asking source must meet a limit")
        let recovery = try server.gotrue("POST", "/auth/v1/recover", json: ["email": victim], from: Self.owner)
        #expect(recovery.status == 200, "recovery from another source: \(recovery.status) \(String(decoding: recovery.body, as: UTF8.self))")
        #expect(try server.mail(to: victim).code.count == 6)
    }

    @Test func adminInvitationsPassTheGlobalValve() throws {
        let server = try MailAuthServer(hourlyLimit: 12)
        let admin = try server.app.login()
        let people = try Self.realtors(server, 4, token: admin.access)
        // Twelve sources, one mail each: the global ceiling is reached without any source's.
        for index in 0..<12 {
            let answer = try server.gotrue("POST", "/auth/v1/recover", json: ["email": people[index % 4]], from: "203.0.113.\(index + 1)")
            #expect(answer.status == 200)
        }
        let valve = try server.gotrue("POST", "/auth/v1/recover", json: ["email": people[0]], from: "203.0.113.99")
        #expect(valve.status == 429)
        let newHire = "new.hire@example.com"
        let invited = try server.api("POST", "/v1/invitations", json: ["email": newHire, "name": "New Hire"], from: "192.0.2.1",
                                     token: admin.access)
        #expect(invited.status == 201, "invitation past the valve: \(invited.status) \(String(decoding: invited.body, as: UTF8.self))")
        #expect(try server.mail(to: newHire).code.count == 6)
    }
}
