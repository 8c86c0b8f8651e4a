import API
import Accounts
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import Foundation
import HTTP1
import HTTPServer
import Testing

/// Dockerfile, docker-compose.yml and .env.example checked against the code they deploy: a
/// renamed variable, a moved folder or a changed route fails here instead of in production.
@Suite struct DeploymentFilesTests {
    struct AlwaysReady: ReadinessCheck {
        func check() -> Readiness { .ready }
    }

    @Test func configurationSourceDeclaresVariables() throws {
        let variables = try DeploymentFiles.configurationVariables()
        #expect(variables.isSuperset(of: ["DATABASE_URL", "JWT_SECRET", "HOST", "PORT", "MIGRATIONS_DIR"]))
    }

    @Test func composeServerEnvironmentNamesOnlyVariablesDispatchdReads() throws {
        let known = try DeploymentFiles.configurationVariables()
        let server = try #require(try DeploymentFiles.composeService("server"))
        let names = DeploymentFiles.composeKeys(in: server, section: "environment")
        #expect(names.contains("DATABASE_URL") && names.contains("JWT_SECRET"))
        #expect(Set(names).subtracting(known) == [])
    }

    @Test func dockerfileEnvironmentNamesOnlyVariablesDispatchdReads() throws {
        let known = try DeploymentFiles.configurationVariables()
        let names = try DeploymentFiles.dockerfileEnvVariables()
        #expect(names.contains("MIGRATIONS_DIR"))
        #expect(names.subtracting(known) == [])
    }

    @Test func envExampleNamesWhatComposeInterpolatesAndOnlyWhatReachesSomething() throws {
        let example = try DeploymentFiles.envExampleVariables()
        let interpolated = try DeploymentFiles.composeInterpolatedVariables()
        let settings = try DeploymentFiles.configurationVariables()
        #expect(interpolated.subtracting(example) == [], "used by docker-compose.yml but missing from .env.example")
        #expect(example.subtracting(interpolated).subtracting(settings) == [],
                "in .env.example but neither used by docker-compose.yml nor read by dispatchd")
    }

    @Test func envExampleNamesOnlyDispatchdOrComposeVariables() throws {
        let known = try DeploymentFiles.configurationVariables()
        let composeOnly: Set = ["POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB", "SERVER_PORT", "SITE_ADDRESS"]
        #expect(try DeploymentFiles.envExampleVariables().subtracting(known).subtracting(composeOnly) == [])
    }

    @Test func dockerfileCopiesOnlyPathsThatExist() throws {
        let sources = try DeploymentFiles.dockerfileCopySources()
        #expect(sources.contains("migrations"))
        for source in sources {
            #expect(FileManager.default.fileExists(atPath: ProjectPaths.root + "/" + source), "COPY \(source)")
        }
    }

    @Test func dockerignoreKeepsWhatTheBuildCopies() throws {
        let ignored = Set(try DeploymentFiles.text(".dockerignore").split(separator: "\n").map(String.init))
        let copied = Set(try DeploymentFiles.dockerfileCopySources())
        #expect(ignored.intersection(copied) == [])
        #expect(ignored.contains(".build") && ignored.contains(".data"))
    }

    @Test func portsMatchTheDefaultPort() throws {
        let port = try #require(try DeploymentFiles.defaultPort())
        let dockerfile = try DeploymentFiles.text("Dockerfile")
        #expect(DeploymentFiles.matches(#"^EXPOSE ([0-9]+)$"#, in: dockerfile) == ["\(port)"])
        #expect(DeploymentFiles.matches(#"PORT=([0-9]+)"#, in: dockerfile) == ["\(port)"])
        let server = try #require(try DeploymentFiles.composeService("server"))
        let compose = server.joined(separator: "\n")
        #expect(DeploymentFiles.matches(#"^      PORT: ([0-9]+)$"#, in: compose) == ["\(port)"])
        #expect(DeploymentFiles.matches(#"^      - "[^"]*:([0-9]+)"$"#, in: compose) == ["\(port)"])
    }

    @Test func healthchecksProbeARegisteredUnauthenticatedRoute() throws {
        let routes = APIApplication(readiness: AlwaysReady()).makeRouter().routes
        let server = try #require(try DeploymentFiles.composeService("server")).joined(separator: "\n")
        let probes = DeploymentFiles.matches(#"http://127\.0\.0\.1:[^/]+(/[a-z]+)"#, in: try DeploymentFiles.text("Dockerfile"))
            + DeploymentFiles.matches(#"http://127\.0\.0\.1:[^/]+(/[a-z]+)"#, in: server)
        #expect(probes == ["/readyz", "/readyz"])
        for probe in probes {
            #expect(routes.contains { $0.method == .get && $0.pattern == probe })
        }
    }

    @Test func composeServerWaitsForHealthyPostgres() throws {
        let server = try #require(try DeploymentFiles.composeService("server")).joined(separator: "\n")
        #expect(server.contains("      postgres:\n        condition: service_healthy"))
        let postgres = try #require(try DeploymentFiles.composeService("postgres")).joined(separator: "\n")
        #expect(postgres.contains("pg_isready"))
        #expect(postgres.contains("postgres-data:/var/lib/postgresql/data"))
    }

    @Test func entrypointAndCommandsTheFilesMentionAreDispatchdSubcommands() throws {
        let dockerfile = try DeploymentFiles.text("Dockerfile")
        #expect(dockerfile.contains(#"ENTRYPOINT ["dispatchd"]"#))
        let commands = DeploymentFiles.matches(#"^CMD \["([a-z-]+)"\]$"#, in: dockerfile)
            + DeploymentFiles.matches(#"dispatchd ([a-z-]+) "#, in: try DeploymentFiles.text("docker-compose.yml"))
        #expect(Set(commands) == ["serve", "create-admin"])
        for command in Set(commands) {
            let result = try CommandLineTests.runDispatchd([command, "--help"], environment: [:])
            #expect(result.status == 0, "dispatchd \(command) --help")
        }
    }

    // The configuration reference against the code: ConfigurationReferenceTests.
}
