/// The PostgreSQL parameters a server reads only when it starts (`context = 'postmaster'` in `pg_settings`, in
/// PostgreSQL 13 to 17): a new cluster must start with them, or its first deploy restarts every member.
enum PostmasterParameters {
    static let names: Set<String> = [
        "archive_mode", "autovacuum_freeze_max_age", "autovacuum_max_workers", "autovacuum_multixact_freeze_max_age",
        "bonjour", "bonjour_name", "cluster_name", "data_sync_retry", "debug_io_direct", "dynamic_shared_memory_type",
        "event_source", "huge_page_size", "huge_pages", "io_method", "io_workers", "jit_provider", "listen_addresses",
        "logging_collector", "max_connections", "max_files_per_process", "max_locks_per_transaction",
        "max_logical_replication_workers", "max_notify_queue_pages", "max_pred_locks_per_transaction",
        "max_prepared_transactions", "max_replication_slots", "max_wal_senders", "max_worker_processes",
        "min_dynamic_shared_memory", "old_snapshot_threshold", "port", "recovery_target", "recovery_target_action",
        "recovery_target_inclusive", "recovery_target_lsn", "recovery_target_name", "recovery_target_time",
        "recovery_target_timeline", "recovery_target_xid", "reserved_connections", "shared_buffers",
        "shared_memory_type", "shared_preload_libraries", "superuser_reserved_connections", "summarize_wal_workers",
        "track_activity_query_size", "track_commit_timestamp", "unix_socket_directories", "unix_socket_group",
        "unix_socket_permissions", "wal_buffers", "wal_decode_buffer_size", "wal_level", "wal_log_hints",
    ]
}
