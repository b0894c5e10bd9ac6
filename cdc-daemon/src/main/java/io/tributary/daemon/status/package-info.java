/**
 * The status page on the management port: {@code GET /} and {@code /status} (one HTML file, no build step),
 * {@code GET /status.json} (shards, global binlog, throughput history, buffer, dump subscribers) and
 * {@code GET /binlog.json} (the binlog browser's listing of {@code binlog.dir}, for {@code binlog --url}).
 */
package io.tributary.daemon.status;
