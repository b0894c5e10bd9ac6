package io.tributary.core.position;

import java.util.Map;
import java.util.TreeMap;

/**
 * A MariaDB GTID position ({@code @@gtid_slave_pos} style): per replication domain, the last
 * transaction seen as {@code domain-server-sequence}. Text form {@code 0-101-42,1-102-7}.
 *
 * <p>Mutable; owned by one thread.
 */
public final class MariaDbGtidPosition {
    private record Gtid(long serverId, long sequence) {
    }

    private final TreeMap<Long, Gtid> domains = new TreeMap<>();

    public static MariaDbGtidPosition parse(String text) {
        MariaDbGtidPosition pos = new MariaDbGtidPosition();
        if (text == null || text.isBlank()) {
            return pos;
        }
        for (String part : text.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            String[] f = p.split("-");
            try {
                if (f.length != 3) {
                    throw new NumberFormatException();
                }
                long domain = Long.parseLong(f[0]);
                if (pos.domains.containsKey(domain)) {
                    throw new IllegalArgumentException("invalid MariaDB GTID position '" + text + "': domain " + domain
                            + " appears twice");
                }
                pos.add(domain, Long.parseLong(f[1]), Long.parseLong(f[2]));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("invalid MariaDB GTID position '" + text + "': '" + p
                        + "' is not domain-server-sequence", e);
            }
        }
        return pos;
    }

    public void add(long domain, long serverId, long sequence) {
        domains.put(domain, new Gtid(serverId, sequence));
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Long, Gtid> e : domains.entrySet()) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(e.getKey()).append('-').append(e.getValue().serverId()).append('-').append(e.getValue().sequence());
        }
        return sb.toString();
    }
}
