@testable import Console

/// Sample data of the Work, Explain access, View as, Sync health and Off-boarding templates
/// (ConsoleTemplateTests renders each once, escaping checked).
extension ConsoleTemplateTests {
    static var dataSamples: [String: [String: Any]] {
        let option: [String: Any] = ["value": "u1", "label": script, "selected": true]
        let item: [String: Any] = ["id": "t1", "type": "tasks", "title": script, "status": "open", "priority": "high", "claimer": "C",
                                   "declarer": "D", "due": "—", "updated": "now", "created": "now", "version": "3", "owner": "O",
                                   "staff": "S", "price": "1", "mls": "M", "description": "d", "listingID": "l1", "claimed": true]
        return [
            "work": ["items": [item], "none": false, "isListings": false, "types": [["value": "tasks", "selected": true]],
                     "statuses": [["value": "open", "selected": false]], "priorities": [["value": "high", "selected": true]],
                     "claimers": [option], "claimerNone": false, "declarers": [option], "owners": [option], "listing": script,
                     "overdue": true, "next": "/console/work?after=1", "first": "/console/work"],
            "work-item": ["item": item, "itemID": "t1", "type": "tasks", "noun": "task", "isListing": false, "deleted": false,
                          "csrf": "tok", "claimed": true, "claimable": true, "people": [option], "statusChoices": [["value": "completed"]],
                          "hasNotes": true, "notes": [["author": "A", "at": "now", "content": script, "deleted": true]],
                          "hasSubtasks": true, "subtasks": [["title": script, "done": true, "deleted": false]],
                          "hasClaims": true, "claims": [["at": "now", "action": "claimed", "user": script, "actor": "A"]],
                          "hasStatusChanges": true, "statusChanges": [["at": "now", "from": "open", "to": "completed", "by": script]]],
            "access": ["people": [option], "rowID": script, "types": [["value": "task", "selected": true]],
                       "result": ["sees": false, "person": script, "noun": "task", "link": "/console/work/tasks/t1", "deactivated": true,
                                  "rowDeleted": true, "viewAs": "/console/access/view-as?user=u1", "hasHistory": true,
                                  "clauses": [["holds": true, "text": "declared it", "through": [["link": "/x", "label": "task 1"]]]],
                                  "history": [["at": "now", "kind": "revoked", "actor": script]]] as [String: Any]],
            "view-as": ["person": script, "personID": "u1", "isAdmin": false, "none": false, "next": "/n", "first": "/f",
                        "rows": [["stage": "tasks", "id": "t1", "label": script, "status": "open", "mine": false, "other": true, "claimer": "C"]]],
            "sync": ["none": false, "next": "/console/sync?after=1", "first": "/console/sync",
                     "devices": [["person": script, "personLink": "/console/sync/u1", "device": "App session", "lastSeen": "now",
                                  "lastSync": "now", "lastPush": "—", "trouble": true, "resets": 1, "rejected": 2, "conflicts": 0,
                                  "claimConflicts": 1]]],
            "devices": ["person": script, "personID": "u1", "none": false,
                            "devices": [["device": script, "lag": "2 changes waiting", "lagState": "warn", "lastSeen": "now", "lastSync": "now",
                                         "lastPush": "—", "syncs": 3, "pushes": 1, "resets": 0, "rejected": 0, "conflicts": 0, "claimConflicts": 0]]],
            "offboard": ["person": script, "personID": "u1", "claims": 2, "owned": 1, "staffed": 0, "people": [option], "nothing": false,
                         "csrf": "tok"],
        ]
    }
}
