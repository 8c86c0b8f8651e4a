import Foundation
import Postgres
import Testing

/// The Work list's listing filter takes what an office knows, the address, not an id: an exact
/// address, or text only one listing's address or city contains; several or none are a clear
/// refusal naming what matched. A filter that came from a link (an id) shows the address.
@Suite struct ConsoleListingFilterTests {
    @Test func aListingIsChosenByItsAddress() throws {
        let world = try ResourceWorld(withConsole: true)
        let scene = try world.scene()
        let pool = world.app.database.pool
        try pool.execute("UPDATE listings SET address = '12 Harbour Street', city = 'Halifax' WHERE id = \(scene.listing)::uuid")
        try pool.execute("UPDATE tasks SET listing_id = \(scene.listing)::uuid WHERE id = \(scene.task)::uuid")
        let browser = ConsoleSession(world.app)
        try browser.signIn()

        let byPart = try browser.get("/console/work?type=tasks&listing=harbour")
        #expect(byPart.status == 200)
        #expect(ConsoleSession.text(byPart).contains("/console/work/tasks/\(scene.task)"))
        #expect(ConsoleSession.text(byPart).contains(#"value="harbour""#), "what was typed stays in the field")
        let none = try browser.get("/console/work?type=tasks&listing=Nowhere%20Lane")
        #expect(none.status == 422 && ConsoleSession.text(none).contains("No listing has an address or city containing"))

        try pool.execute("""
            INSERT INTO listings (address, city, owned_by) VALUES ('14 Harbour Street', 'Halifax', \(world.id(.owner))::uuid)
            """)
        let several = try browser.get("/console/work?type=tasks&listing=harbour")
        #expect(several.status == 422)
        #expect(ConsoleSession.text(several).contains("Several listings match") && ConsoleSession.text(several).contains("14 Harbour Street, Halifax"))
        let exact = try browser.get("/console/work?type=tasks&listing=12%20harbour%20street")
        #expect(exact.status == 200 && ConsoleSession.text(exact).contains("/console/work/tasks/\(scene.task)"))

        let fromLink = ConsoleSession.text(try browser.get("/console/work?type=tasks&listing=\(scene.listing)"))
        #expect(fromLink.contains(#"value="12 Harbour Street""#) && fromLink.contains("/console/work/tasks/\(scene.task)"))
        #expect(fromLink.contains("Created by") && !fromLink.contains("Declared by"))
    }
}
