import Foundation
import Glibc
import HTTP1
import HTTPServer
import Logging
import RouteKit

/// Runs password hashing and verification (Argon2id: 19 MiB and tens of ms of CPU each; an
/// older scrypt hash 32 MiB and ~185 ms) on
/// a small pool of its own, so a burst of sign-ins or wrong `current_password` guesses queues
/// among itself instead of taking every HTTP worker and starving cheap requests.
///
/// The handler hands its whole password-dependent part to `respond` and returns a deferred
/// reply at once: a request waiting for the KDF holds no HTTP worker, only its socket. The
/// part runs on a KDF thread (its few database statements too) and the response is sent when
/// it finishes. If the client disconnects while queued, the part never runs.
package final class PasswordWork: Sendable {
    private let pool: WorkerPool
    package var concurrency: Int { pool.count }

    /// Half the cores, at least 1: the rest stays free for everything else.
    package static var defaultConcurrency: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) / 2)
    }

    package init(concurrency: Int = PasswordWork.defaultConcurrency) {
        pool = WorkerPool(count: concurrency, name: "kdf")
    }

    package func stop() { pool.stop() }

    /// The pool's threads would otherwise wait forever for jobs (an AuthService never stopped,
    /// as in tests).
    deinit { pool.stop() }

    /// Answers with what `work` returns or throws, rendered as a throw from the handler would be
    /// (`RequestContext.renderError`: the route group's style, database errors mapped, anything
    /// unexpected a logged 500). Public for the console, whose work renders its own errors as pages.
    package func respond(_ context: RequestContext, _ work: @escaping @Sendable () throws -> HTTPResponse) -> HandlerReply {
        let completion = ResponseCompletion()
        pool.submit {
            guard !completion.isCancelled else { return }
            completion.complete(with: Self.run(work, context))
        }
        return .deferred(completion)
    }

    static func run(_ work: () throws -> HTTPResponse, _ context: RequestContext) -> HTTPResponse {
        do {
            return try work()
        } catch {
            return context.renderError(error)
        }
    }
}
