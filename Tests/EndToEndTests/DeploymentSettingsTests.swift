import Foundation
import HTTPServer
import Testing
@testable import dispatchd

/// The shipped deployment passes every setting to the server and tells clients apart: a
/// setting added to `Setting` that an operator could not set in the container fails here.
@Suite struct DeploymentSettingsTests {
    /// What docker-compose.yml sets itself and an operator must not override through .env.
    static let fixedByCompose: Set = ["DATABASE_URL", "HOST", "PORT"]
    /// Folders of the image's layout (Dockerfile `ENV`); .env could still override them.
    static let imageLayout: Set = ["DATA_DIR", "MIGRATIONS_DIR"]

    @Test func everySettingCanReachTheServerContainer() throws {
        let server = try #require(try DeploymentFiles.composeService("server"))
        let envFile = DeploymentFiles.composeValue(in: server, key: "env_file")
        let environment = DeploymentFiles.composeEnvironment(in: server)
        let example = try DeploymentFiles.envExampleVariables()
        for setting in Setting.allCases.map(\.name).sorted() {
            if let value = environment[setting] {
                // Set by compose: either deliberately fixed, or taken from .env under its own name.
                #expect(Self.fixedByCompose.contains(setting) || value.contains("${\(setting)"),
                        "docker-compose.yml fixes \(setting) to \(value): an operator cannot set it")
                continue
            }
            if Self.imageLayout.contains(setting) { continue }
            let passed = envFile == ".env"
            #expect(passed, "\(setting) cannot reach the server container: its service needs `env_file: .env`")
            let named = example.contains(setting)
            #expect(named, "\(setting) is missing from .env.example (add `\(setting)=` with a comment)")
        }
    }

    @Test func envExampleExplainsTheMailLinkAndProxySettings() throws {
        let names = Setting.allCases.map(\.name).filter { $0.hasPrefix("SMTP_") || $0.hasPrefix("MAIL_") }
            + ["PUBLIC_URL", "AUTH_REDIRECT_URLS", "TRUSTED_PROXIES"]
        #expect(names.contains("MAIL_FILE_DELIVERY") && names.contains("SMTP_HOST"))
        for name in names {
            let entry = try DeploymentFiles.envExampleEntry(name)
            #expect(entry?.commented == true, "\(name) in .env.example, under a comment")
        }
    }

    /// The documented proxy (Caddy, `--profile proxy`) has a fixed address that .env.example's
    /// TRUSTED_PROXIES names, inside the compose network and outside the range Docker hands
    /// to other containers, so nothing else can ever be trusted in its place.
    @Test func trustedProxiesNameTheComposeProxyAndOnlyIt() throws {
        let proxy = try #require(try DeploymentFiles.composeService("proxy"))
        let proxyText = proxy.joined(separator: "\n")
        let address = try #require(DeploymentFiles.matches(#"ipv4_address: ([0-9.]+)$"#, in: proxyText).first)
        let compose = try DeploymentFiles.text("docker-compose.yml")
        let subnet = try #require(DeploymentFiles.matches(#"- subnet: ([0-9./]+)$"#, in: compose).first.flatMap { TrustedProxies.Network($0) })
        let pool = try #require(DeploymentFiles.matches(#"ip_range: ([0-9./]+)$"#, in: compose).first.flatMap { TrustedProxies.Network($0) })
        let ip = try #require(IPAddress(address))
        #expect(subnet.contains(ip) && !pool.contains(ip))

        let trusted = try #require(try DeploymentFiles.envExampleEntry("TRUSTED_PROXIES")).value
        let proxies = try TrustedProxies(parsing: trusted)
        #expect(proxies.trusts(ip))
        #expect(!proxies.trusts(try #require(IPAddress("172.30.0.200"))), "a container's address is never trusted")

        // The proxy runs the documented configuration, in front of the server's port.
        #expect(proxyText.contains("./deploy/Caddyfile:/etc/caddy/Caddyfile:ro"))
        let caddyfile = try DeploymentFiles.text("deploy/Caddyfile")
        #expect(caddyfile.contains("reverse_proxy server:\(try #require(try DeploymentFiles.defaultPort()))"))
        #expect(caddyfile.contains("{$SITE_ADDRESS}") && proxyText.contains("SITE_ADDRESS: ${SITE_ADDRESS"))
    }
}
