import Foundation
import HTTP1
import HTTPServer
import Store

extension SyncWaiters {
    /// A parked request. `check` reads its own page; nil means "nothing yet" (keep waiting)
    /// unless `final` is set (the deadline passed: answer whatever).
    package struct Waiter: Sendable {
        let viewer: Viewer
        /// The caller's sign-in session (nil for an API key): it is live while parked.
        let session: UUID?
        let cursor: SyncCursor
        let limit: Int
        /// The snapshot the request's first (empty) page reflected.
        let seen: SyncSnapshot?
        let deadline: ContinuousClock.Instant
        let completion: ResponseCompletion
        let check: @Sendable (_ final: Bool) -> Answer?
        /// Called with the answer's next cursor when this request is answered with a page, so
        /// Sync health shows where a parked device got to, as it does for an immediate answer.
        let answered: @Sendable (SyncCursor) -> Void
        /// The limit and the encoded cursor: what is asked, whoever asks it (encoded once, at
        /// parking, rather than at every wake-up).
        let asked: String
        /// The database epoch the answer's cursors carry (DatabaseEpoch).
        let epoch: String
        /// Waiters with the same question (user, role, cursor, limit) share one answer.
        var question: Question { Question(viewer: viewer, asked: asked) }
        /// Waiters of *any* user with the same plain delta cursor and limit share one read
        /// (SyncFeed.sharedPages); nil for other cursors.
        var sharedQuestion: String? { cursor.isPlainDelta ? asked : nil }

        init(viewer: Viewer, session: UUID? = nil, cursor: SyncCursor, limit: Int, seen: SyncSnapshot?, deadline: ContinuousClock.Instant,
             epoch: String, completion: ResponseCompletion, check: @escaping @Sendable (_ final: Bool) -> Answer?,
             answered: @escaping @Sendable (SyncCursor) -> Void) {
            self.viewer = viewer
            self.session = session
            self.epoch = epoch
            self.cursor = cursor
            self.limit = limit
            self.seen = seen
            self.deadline = deadline
            self.completion = completion
            self.check = check
            self.answered = answered
            asked = "\(limit) \(cursor.encoded())"
        }

        /// What a parked request answers with `page`: nothing yet while it is empty, unless
        /// the deadline passed (`final`), when it answers whatever there is.
        static func response(to page: SyncPage, final: Bool, epoch: String) -> Answer? {
            !final && page.isEmpty && !page.hasMore ? nil : Answer(response: SyncService.render(page, epoch: epoch), next: page.next)
        }
    }

    /// A parked request's answer: the response, and the page's next cursor (nil for an error).
    package struct Answer: Sendable {
        let response: HTTPResponse
        let next: SyncCursor?
    }

    /// A waiter's question: who asks, and what.
    package struct Question: Hashable {
        let viewer: Viewer
        let asked: String
    }

    /// Reads the pages of many viewers at one cursor together (SyncFeed.sharedPages);
    /// viewers missing from the result are read one by one.
    package typealias SharedRead = @Sendable (_ viewers: [Viewer], _ cursor: SyncCursor, _ limit: Int) throws -> [Viewer: SyncPage]

    /// For each (viewer, plain delta cursor), the `next_since` of an empty page when it is
    /// proven that nothing new is visible to the viewer (ChangeHistory), else nil.
    package typealias IdleAnswer = @Sendable (_ questions: [(Viewer, SyncCursor)]) -> [SyncCursor?]
}
