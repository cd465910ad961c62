extension ReferenceVariable {
    /// The entries for the variables of the reference's backup and restore playbooks of 2026-05 … 2026-09
    /// (`restore_pgcluster.yml`, `backup_pgcluster.yml`, `backup_list.yml`, `enable_backups.yml`, and the role
    /// defaults they brought), which no tag publishes: their files are not in the fixtures, their names and meanings
    /// are (`platform-backups-dr.md` §1).
    static let newestPlaybooks: [String: Treatment] = {
        var catalog = Catalog()
        catalog.add(
            .equivalent(
                "keel restore takes its target on the command line (--target-time, --backup-set, --latest), shows "
                    + "the plan and asks for the cluster's name; this value is not read"),
            [
                "pgbackrest_restore_backup_set", "pgbackrest_restore_immediate", "pgbackrest_restore_target_time",
                "restore_backup_name", "restore_immediate", "restore_target_action", "restore_target_time",
                "restore_target_timeline",
            ])
        catalog.add(.equivalent("keel restore restores with pgBackRest"), ["restore_pgcluster_tool"])
        catalog.add(
            .notApplicable(
                "backing up now and listing backups are not Keel commands yet: pgBackRest's scheduled backups run "
                    + "from cron, pgbackrest info lists them"),
            ["backup_pgcluster_target", "backup_list_tool", "backup_list_format"])
        catalog.add(cloudResources, ["cloud_backup_provider"])
        return catalog.entries
    }()
}
