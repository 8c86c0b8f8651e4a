import Domain
import Foundation
import Postgres
@testable import Store
import Testing

/// `GET /v1/{r}/{id}` reuses its statement's text per resource (`CallerGetStatement`): for
/// every resource, the reused statement must be exactly the one built for that caller and row.
/// (What the statement reads, and its plan, are tested through it: ResourceAuthorizationMatrixTests,
/// ListPlanTests.)
@Suite struct CallerGetStatementTests {
    @Test func reusedStatementEqualsTheBuiltOne() {
        for resource in Resource.allCases {
            for _ in 0..<5 {
                let caller = UUID(), row = UUID()
                let reused = CallerGetStatement.query(resource, callerID: caller, id: row)
                #expect(reused == CallerGetStatement.build(resource, callerID: caller, id: row), "\(resource)")
                #expect(reused.binds.contains(PostgresBind(caller)) && reused.binds.contains(PostgresBind(row)), "\(resource)")
            }
        }
    }
}
