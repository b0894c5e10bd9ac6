/**
 * The binlog event codec: the v4 event header, every event type written by MySQL 5.6 to 9.x and
 * MariaDB 10.x to 11.x, checksums, and the encoders for the events the global binlog is made of.
 *
 * <p>Reference: MySQL's {@code libbinlogevents/} and {@code sql/log_event.cc}, MariaDB's
 * {@code sql/log_event.h}; see {@code ../shared/docs/PROTOCOL-NOTES.md} for the facts gathered so far.
 * Nothing here touches files or sockets: events come in and go out as bytes.
 */
package io.tributary.core.event;
