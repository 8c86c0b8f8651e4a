import API
import Domain
import Foundation
import HTTPServer
import Store

/// `/console/people/{id}/offboard`: hand over everything a leaving person holds in one action
/// (`Offboarding`: their open claims released or given to a colleague, their listings owned or
/// staffed given to a colleague, in one transaction through the API's stores). The GET shows
/// what would move; the POST does it, audited.
enum ConsoleOffboardRoutes {
    static func register(on router: inout Router, site: ConsoleSite) {
        router.get("/console/people/{id}/offboard") { request, context in
            try site.page(request, context) { _ in
                let user = try ConsolePersonRoutes.person(context, site)
                let held = try Offboarding(pool: site.auth.pool).preview(user: user.id)
                let me = user.id.uuidString.lowercased()
                let people = try ConsolePeopleOptions.load(site.auth.pool)
                return ConsolePage(title: "Off-board \(user.name)", section: "/console/people", template: "offboard", data: [
                    "person": user.name, "personID": me, "claims": held.claims, "owned": held.owned, "staffed": held.staffed,
                    "people": people.options(selected: nil, except: me),
                    "nothing": held.claims + held.owned + held.staffed == 0,
                ])
            }
        }
        router.post("/console/people/{id}/offboard") { request, context in
            try site.action(request, context) { viewer, form in
                let user = try ConsolePersonRoutes.person(context, site)
                guard let listingsTo = UUID(uuidString: try form.required("listings_to", label: "Listings go to")) else {
                    throw ConsoleError.invalid("Choose who takes over the listings.")
                }
                var claimsTo: UUID?
                if let choice = form["claims_to"], choice != "release" {
                    guard let id = UUID(uuidString: choice) else { throw ConsoleError.invalid("Choose who takes over the claims.") }
                    claimsTo = id
                }
                let result = try Offboarding(pool: site.auth.pool).run(ConsoleWorkRoutes.admin(viewer), user: user.id,
                                                                       claimsTo: claimsTo, listingsTo: listingsTo)
                let claims = claimsTo == nil ? "\(result.released) claims released" : "\(result.reassigned) claims handed over"
                try site.record(viewer, action: "person.offboard", targetType: "user", targetID: user.id.uuidString.lowercased(),
                                summary: "Off-boarded \(user.email): \(claims), \(result.listingsOwned) listings and "
                                    + "\(result.listingsStaffed) staff assignments handed to \(listingsTo.uuidString.lowercased())")
                return .redirect("/console/people/\(user.id.uuidString.lowercased())/offboard?done=offboarded")
            }
        }
    }
}
