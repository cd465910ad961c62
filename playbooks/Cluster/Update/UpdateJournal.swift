import Keel

/// The rolling update's record in the engine journal (``JournalRecord``): a host an update took out of service holds
/// an unfinished record until it is back, so the next run, `keel status` and the flows that need a cluster at rest
/// all see it.
enum UpdateJournal {
    /// The flow's name in the journal (and on the command line).
    static let flow = "update"

    /// Whether a host's journal (``JournalRecord/readAll``) holds an update left unfinished.
    static func leftUnfinished(_ journal: String) -> Bool {
        JournalRecord.parse(journal).contains { $0.flow == flow && $0.isUnfinished }
    }
}
