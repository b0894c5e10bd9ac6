package io.tributary.core.event;

/**
 * ROTATE_EVENT (4): {@code position(8)} (absent when the FDE gives post-header length 0), then the next
 * file name to the end of the body. Written at a file's end, and as a fake first event (timestamp 0)
 * in a replication stream.
 *
 * @param position  where to read the next file from
 * @param nextFile  the next binlog file name
 */
public record RotateEvent(long position, String nextFile) implements EventBody {

    static RotateEvent read(EventReader r, int postHeaderLength) {
        long position = 4;
        if (postHeaderLength >= 8) {
            position = r.u64("position");
            r.skip(postHeaderLength - 8, "rotate post-header");
        }
        return new RotateEvent(position, r.rest());
    }
}
