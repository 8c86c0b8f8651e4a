import Foundation
import Synchronization

/// Failed requests in memory, for the console: each person's last failures (4xx and 5xx
/// answers to a signed-in caller) for the person page and Sync health, "her phone keeps saying
/// error" answered without reading logs; and the last server errors (5xx, anyone's) for the
/// Server page. Per instance and bounded: at most `perPerson` entries for each of at most
/// `people` people (the one whose last failure is oldest is forgotten first) and
/// `serverErrorCapacity` server errors, lost on restart (the logs keep everything). An entry
/// holds the route's pattern, never the raw path, and nothing of the body.
package final class FailureRing: Sendable {
    package struct Entry: Sendable, Equatable {
        package var at: Date
        package var method: String
        /// The route pattern (`/v1/tasks/{id}`), or the unmatched label.
        package var route: String
        package var status: Int
        /// The error code the answer carried (`version_conflict`), when the renderer named one.
        package var errorCode: String?
        package var requestID: String

        package init(at: Date, method: String, route: String, status: Int, errorCode: String?, requestID: String) {
            self.at = at
            self.method = method
            self.route = route
            self.status = status
            self.errorCode = errorCode
            self.requestID = requestID
        }
    }

    package let perPerson: Int
    package let people: Int
    package let serverErrorCapacity: Int
    private let entries = Mutex<[String: [Entry]]>([:])
    private let serverErrors = Mutex<[Entry]>([])

    package init(perPerson: Int = 20, people: Int = 5000, serverErrorCapacity: Int = 50) {
        self.perPerson = perPerson
        self.people = people
        self.serverErrorCapacity = serverErrorCapacity
    }

    /// One failed answer: a 5xx joins the server errors; `userID` (the lowercase id the request
    /// authenticated as, nil: anonymous) keeps it among that person's failures.
    package func record(userID: String?, _ entry: Entry) {
        if entry.status >= 500 {
            serverErrors.withLock { errors in
                errors.insert(entry, at: 0)
                if errors.count > serverErrorCapacity { errors.removeLast(errors.count - serverErrorCapacity) }
            }
        }
        guard let userID else { return }
        entries.withLock { entries in
            if entries[userID] == nil, entries.count >= people,
               let oldest = entries.min(by: { ($0.value.first?.at ?? .distantPast) < ($1.value.first?.at ?? .distantPast) })?.key {
                entries[oldest] = nil
            }
            var list = entries[userID] ?? []
            list.insert(entry, at: 0)
            if list.count > perPerson { list.removeLast(list.count - perPerson) }
            entries[userID] = list
        }
    }

    /// The last server errors, newest first.
    package var recentServerErrors: [Entry] { serverErrors.withLock { $0 } }

    /// The person's failures, newest first.
    package func recent(userID: UUID) -> [Entry] {
        let key = userID.uuidString.lowercased()
        return entries.withLock { $0[key] ?? [] }
    }
}
