package io.tributary.core.event;

import java.util.ArrayList;
import java.util.List;

/**
 * MariaDB GTID_LIST_EVENT (163): the last GTID of every domain before this file. Body:
 * {@code count_and_flags(4)} (count in the low 28 bits) then {@code domain(4) server(4) seq(8)} per entry.
 *
 * @param flags the top 4 bits of the first word
 * @param gtids one GTID per domain
 */
public record GtidListEvent(int flags, List<MariaGtid> gtids) implements EventBody {

    /** One MariaDB GTID, printed {@code domain-server-sequence}. */
    public record MariaGtid(long domainId, long serverId, long sequence) {
        @Override
        public String toString() {
            return domainId + "-" + serverId + "-" + sequence;
        }
    }

    public GtidListEvent {
        gtids = List.copyOf(gtids);
    }

    static GtidListEvent read(EventReader r) {
        long word = r.u32("gtid list count");
        int count = (int) (word & 0x0FFFFFFF);
        if (count > r.remaining() / 16) {
            throw new MalformedEventException("gtid list count " + count + " cannot fit in the " + r.remaining() + " bytes left");
        }
        List<MariaGtid> gtids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            gtids.add(new MariaGtid(r.u32("domain"), r.u32("server"), r.u64("seq_no")));
        }
        return new GtidListEvent((int) (word >>> 28), gtids);
    }
}
