import Foundation
import Keel

/// Where a restore stops: at a moment, at the end of a backup set (its consistency point), at a moment replayed
/// from a chosen set, or at the end of the archived WAL.
public enum RestoreTarget: Sendable, Equatable, Codable {
    case time(Moment)
    case backupSet(String, Moment?)
    case latest

    /// A moment with its time zone, as the operator wrote it and as an instant.
    public struct Moment: Sendable, Equatable, Codable {
        public var text: String
        public var date: Date

        /// `2026-11-22 14:02:16+00`, with `T` or a space, fractions of a second, and a zone (`Z`, `+00`, `+0100`,
        /// `-05:00`); a moment without a zone is refused: it would be read in the hosts' local time.
        public init(_ text: String) throws(FlowError) {
            let pattern = #/^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-]\d{2}(:?\d{2})?)$/#
            guard let match = text.wholeMatch(of: pattern) else {
                throw FlowError(
                    "'\(text)' is not a moment with a time zone",
                    hint: "write it as 2026-11-22 14:02:16+00 (fractions of a second allowed; the zone is required)")
            }
            var components = DateComponents()
            components.year = Int(match.1)
            components.month = Int(match.2)
            components.day = Int(match.3)
            components.hour = Int(match.4)
            components.minute = Int(match.5)
            components.second = Int(match.6)
            let zone = String(match.8)
            var offset = 0
            if zone != "Z" {
                let digits = zone.dropFirst().filter(\.isNumber)
                let hours = Int(digits.prefix(2)) ?? 0
                let minutes = Int(digits.dropFirst(2)) ?? 0
                offset = (hours * 3600 + minutes * 60) * (zone.hasPrefix("-") ? -1 : 1)
                guard minutes < 60, hours * 60 + minutes <= 18 * 60 else {
                    throw FlowError(
                        "'\(text)' has the time zone \(zone), which does not exist",
                        hint: "a zone is at most 18 hours from UTC, its minutes below 60 (+05:30, -08)")
                }
            }
            guard let zone = TimeZone(secondsFromGMT: offset) else {
                throw FlowError("'\(text)' has a time zone that does not exist", hint: "write it as +00, +05:30 or Z")
            }
            components.timeZone = zone
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            // A date out of range (February 30th, 25:00) would roll over: it must read back as written.
            guard let whole = calendar.date(from: components),
                calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
                    == DateComponents(
                        year: components.year, month: components.month, day: components.day, hour: components.hour,
                        minute: components.minute, second: components.second)
            else {
                throw FlowError("'\(text)' is not a valid moment", hint: "write it as 2026-11-22 14:02:16+00")
            }
            self.text = text
            date = whole.addingTimeInterval(match.7.flatMap { Double("0" + $0) } ?? 0)
        }

        /// The moment in UTC with microseconds, as PostgreSQL reads `recovery_target_time`.
        public var utc: String {
            let seconds = date.timeIntervalSince1970
            let whole = Date(timeIntervalSince1970: seconds.rounded(.down))
            let micros = Int(((seconds - seconds.rounded(.down)) * 1_000_000).rounded())
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(secondsFromGMT: 0)!
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
            return String(
                format: "%04d-%02d-%02d %02d:%02d:%02d.%06d+00", c.year!, c.month!, c.day!, c.hour!, c.minute!,
                c.second!,
                micros)
        }
    }

    /// The moment to stop at, if any.
    var moment: Moment? {
        switch self {
        case .time(let moment): moment
        case .backupSet(_, let moment): moment
        case .latest: nil
        }
    }

    /// pgBackRest's restore options for it, with the set chosen. Recovery follows the newest timeline in the
    /// archive (PostgreSQL's default), so a target after a failover is reached on the timeline the cluster then ran.
    func restoreOptions(set: String) -> ShellCommand {
        switch self {
        case .time(let moment), .backupSet(_, .some(let moment)):
            "--set=\(set) --type=time --target=\(moment.utc) --target-action=promote"
        case .backupSet(_, nil): "--set=\(set) --type=immediate --target-action=promote"
        case .latest: "--set=\(set) --type=default"
        }
    }

    /// One line for the plan and the progress marker.
    public var description: String {
        switch self {
        case .time(let moment): "to \(moment.utc)"
        case .backupSet(let label, let moment): "to backup set \(label)" + (moment.map { " then \($0.utc)" } ?? "")
        case .latest: "to the end of the archived WAL"
        }
    }
}
