-- Runs once per shard on an empty data directory (the mysql image's /docker-entrypoint-initdb.d), after the
-- image created MYSQL_USER ('tributary'@'%', password MYSQL_PASSWORD) and MYSQL_DATABASE (shop_<i>), with
-- that database selected.

-- The account Tributary reads with (the daemon checks these at startup and names what is missing):
--   REPLICATION SLAVE   the binlog stream (COM_BINLOG_DUMP);
--   REPLICATION CLIENT  SHOW BINARY LOGS / SHOW MASTER STATUS (where a reader starts);
--   SELECT              settings checks;
--   ALL ON __cdc__.*    the heartbeat table __cdc__.__cdc_heartbeat__ the daemon creates and writes.
-- Not written to the binary log: account changes are no business of Tributary's subscribers.
SET SESSION sql_log_bin = 0;
GRANT REPLICATION SLAVE, REPLICATION CLIENT, SELECT ON *.* TO 'tributary'@'%';
GRANT ALL PRIVILEGES ON `__cdc__`.* TO 'tributary'@'%';
SET SESSION sql_log_bin = 1;

-- A sample sharded table: shop_0.orders ... shop_3.orders are the one logical table shop.orders in the
-- global binlog. Written to the binary log, so a subscriber starting from the beginning gets the DDL.
CREATE TABLE IF NOT EXISTS orders (
    id          BIGINT UNSIGNED NOT NULL PRIMARY KEY,
    customer_id BIGINT UNSIGNED NOT NULL,
    amount      DECIMAL(12, 2)  NOT NULL,
    status      VARCHAR(16)     NOT NULL DEFAULT 'new',
    created_at  TIMESTAMP(6)    NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    KEY (customer_id)
) ENGINE = InnoDB;
