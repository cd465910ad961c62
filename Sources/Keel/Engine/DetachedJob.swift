/// A command that runs to its end on the host whatever becomes of the run that started it.
///
/// It runs as a transient systemd unit of its own (`keel-job-…`), outside the SSH session: neither a killed keel,
/// a lost connection, nor the end of the session's commands (a cancelled step, a keeper whose client went away,
/// ``Action/detached(_:timeout:)``'s deadline) cuts it. The session follows its output as it comes and ends with
/// its exit status; a later run finds it still running and waits for it (``PackagesSettled``).
///
/// Only steps whose interruption leaves the host needing repair by hand run so — dpkg unpacking or configuring
/// packages (apt's install, upgrade, removal and purge, and `dpkg --configure -a`), after which every apt run
/// refuses until `dpkg --configure -a`. Every other step is safe to cut: a rerun redoes it (files are written
/// whole, directories made as one tree, Patroni's venv rebuilt, pg_upgrade's half-made cluster made afresh, a
/// restore resumed from its journal).
///
/// It needs root (systemd-run) and takes no standard input: secrets never reach it.
enum DetachedJob {
    /// The units' names begin with this.
    static let unitPrefix = "keel-job-"
    /// Where each job's output and exit status wait for the session following it (a tmpfs: gone at a reboot).
    static let directory = "/run/keel/jobs"

    /// The script that starts `command` as a job bounded by `seconds`, prints its standard output as it comes and
    /// its standard error at its end, and exits with its status; the job's files go in `directory`.
    static func script(_ command: String, seconds: Int, directory: String = directory) -> ShellCommand {
        let unit = unitPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let job = "\(directory)/\(unit)"
        // The job's own shell records its status once the command ended, renamed into place whole. What jobs no
        // session followed to their end left (a killed run's) goes once ten minutes old.
        let body: ShellCommand =
            "exec </dev/null >>\(job + ".out") 2>>\(job + ".err"); (\(raw: command)); "
            + "echo $? >\(job + ".rc.new") && mv \(job + ".rc.new") \(job + ".rc")"
        return """
            umask 077; mkdir -p \(directory) && : >\(job + ".out") && : >\(job + ".err") || exit 1
            find \(directory) -name '*.rc' -mmin +10 | while read -r f; do rm -f "$f" "${f%.rc}.out" "${f%.rc}.err"; done
            systemd-run --quiet --collect --unit=\(unit) --description='a keel step run to its end' \
            -p RuntimeMaxSec=\(seconds) /bin/sh -c \(body.text) || exit 1
            p=$(systemctl show -P MainPID \(unit).service 2>/dev/null)
            if [ "${p:-0}" -gt 0 ] 2>/dev/null; then tail -s 0.2 -n +1 -f --pid="$p" \(job + ".out"); else cat \(job + ".out"); fi
            cat \(job + ".err") >&2
            [ -e \(job + ".rc") ] || { echo "\(raw: unit) ended without its exit status: stopped on the host?" >&2; exit 1; }
            r=$(cat \(job + ".rc")); rm -f \(job + ".out") \(job + ".err") \(job + ".rc"); exit "$r"
            """
    }

    /// A shell test, without starting a process, that succeeds when a job may still run: one has no exit status
    /// yet. A job stopped on the host never gets one: ``ended`` tells them apart.
    static let mayRun: ShellCommand = "{ r=1; \(withoutStatus("r=0")); [ $r = 0 ]; }"

    /// `command` for each job without an exit status, its output file in `$f`.
    private static func withoutStatus(_ command: ShellCommand) -> ShellCommand {
        "for f in \(raw: directory)/*.out; do [ -e \"$f\" ] && [ ! -e \"${f%.out}.rc\" ] && \(command); done"
    }

    /// Waits up to `seconds` until no job runs (asking systemd), then removes what jobs stopped without an exit
    /// status left; fails when one still runs then.
    static func ended(within seconds: Int) -> ShellCommand {
        let running: ShellCommand =
            "systemctl list-units --plain --no-legend --state=activating,active,deactivating \(unitPrefix + "*") | grep -q ."
        return Poll(
            until: "! \(running)", seconds: seconds,
            onTimeout: .fail("a keel job still runs after \(seconds) s: see systemctl list-units \(unitPrefix)*")
        ).command
            + " && \(withoutStatus("rm -f \"$f\" \"${f%.out}.err\"")); true"
    }
}
