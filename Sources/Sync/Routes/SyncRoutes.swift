import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import RouteKit
import Store

/// `GET /v1/sync` (contract §6): the delta feed, with long-polling.
///
/// Parameters: `since` (cursor; absent = full snapshot), `limit` (1–5000, default 1000),
/// `wait` (0–60 seconds, default 0). An invalid value is 400 `invalid_parameter`; a cursor
/// the server did not write is 400 `invalid_cursor`, a pruned one 410 `resync_required`.
package enum SyncRoutes {
    struct Parameters {
        var cursor: SyncCursor
        var limit: Int
        var wait: Int
    }

    /// `GET /v1/sync` and `POST /v1/sync/push`, for the composition root.
    package static func register(on router: inout Router, auth: AuthService, sync: SyncService) {
        SyncPushRoutes.register(on: &router, auth: auth, log: MutationLog(pool: auth.pool), devices: sync.devices)
        router.get("/v1/sync") { _, context in
            let principal = try AuthService.principal(context)
            let parsed = Result { try parse(context.query, feed: sync.feed) }
            if case .success(let parameters) = parsed, parameters.wait > 0 { sync.ensureListening() }
            let viewer: Viewer, page: SyncPage, parameters: Parameters
            // An idle delta is answered from memory (caller included) when that is provably
            // what the database would say (ChangeHistory); anything else reads the feed.
            if case .success(let valid) = parsed,
               let (known, idle) = sync.idlePageFromMemory(userID: principal.userID, cursor: valid.cursor) {
                (viewer, page, parameters) = (known, idle, valid)
            } else {
                let tag = sync.usersGeneration
                let user = try auth.currentUser(context)  // 401 before 400, as always
                parameters = try parsed.get()
                viewer = Viewer(userID: user.id, isAdmin: user.isAdmin)
                sync.remember(viewer, isActive: user.isActive, tag: tag)
                do {
                    page = try sync.feed.page(viewer: viewer, cursor: parameters.cursor, limit: parameters.limit)
                } catch {
                    switch error {
                    case SyncFeedError.resyncRequired, SyncFeedError.epochChanged: sync.devices.reset(principal)
                    default: break
                    }
                    throw SyncService.mapped(error)
                }
            }
            let epoch = try sync.feed.epoch.current().epoch
            sync.devices.synced(principal, cursor: page.next, epoch: epoch)
            guard parameters.wait > 0, page.isEmpty, !page.hasMore else { return .response(SyncService.render(page, epoch: epoch)) }
            let completion = ResponseCompletion()
            let feed = sync.feed
            let request = parameters
            let deadline = ContinuousClock.now + .seconds(request.wait)
            let logger = context.logger  // not the whole context: a parked request should stay small
            // Requests asking the same question share one page read per wake-up, and those of
            // different users at the same cursor one shared read (SyncWaiters).
            let waiter = SyncWaiters.Waiter(viewer: viewer, session: principal.sessionID, cursor: request.cursor, limit: request.limit, seen: page.next.since,
                                            deadline: deadline, epoch: epoch, completion: completion) { final in
                do {
                    return SyncWaiters.Waiter.response(to: try feed.page(viewer: viewer, cursor: request.cursor, limit: request.limit),
                                                       final: final, epoch: epoch)
                } catch {
                    // No middleware sees a parked request's failure: logged and rendered as it would.
                    return SyncWaiters.Answer(response: APIErrorRenderer.contractError(for: SyncService.mapped(error), logger: logger).response,
                                              next: nil)
                }
            } answered: { [devices = sync.devices] next in
                devices.synced(principal, cursor: next, epoch: epoch)
            }
            sync.waiters.park(waiter)
            return .deferred(completion)
        }
    }

    static func parse(_ query: QueryParameters, feed: SyncFeed) throws -> Parameters {
        var parameters = Parameters(cursor: .initial, limit: SyncFeed.defaultLimit, wait: 0)
        if let since = query["since"], !since.isEmpty {
            do {
                parameters.cursor = try feed.cursor(decoding: since)
            } catch {
                throw SyncService.mapped(error)
            }
        }
        if let text = query["limit"] {
            guard let limit = Int(text), (1...SyncFeed.maxLimit).contains(limit) else {
                throw invalidParameter("limit", "limit must be an integer from 1 to \(SyncFeed.maxLimit).")
            }
            parameters.limit = limit
        }
        if let text = query["wait"] {
            guard let wait = Int(text), (0...SyncService.maxWaitSeconds).contains(wait) else {
                throw invalidParameter("wait", "wait must be a whole number of seconds from 0 to \(SyncService.maxWaitSeconds).")
            }
            parameters.wait = wait
        }
        return parameters
    }

    private static func invalidParameter(_ name: String, _ message: String) -> DomainError {
        DomainError.invalidParameter(name, message)
    }
}
