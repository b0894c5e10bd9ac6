package io.tributary.daemon.dump;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.tributary.core.packet.ColumnDefinition;
import io.tributary.core.packet.EofPacket;
import io.tributary.core.packet.ErrPacket;
import io.tributary.core.packet.FramedPackets;
import io.tributary.core.packet.MySqlMessage;
import io.tributary.core.packet.MySqlPacket;
import io.tributary.core.packet.MySqlProtocol;
import io.tributary.core.packet.WireBuffers;
import java.util.List;

/**
 * A {@link ResultSink} that writes a text-protocol result set (column count, definitions, EOF, rows, EOF or ERR) to a
 * client's channel from a worker thread: rows are framed as packets into one buffer per 64 KB batch
 * ({@link FramedPackets}), handed to the event loop one batch at a time; while the channel is
 * not writable (its outbound buffer is past the high water mark, the client reads slower than the shards send) the
 * worker waits, so memory holds at most about one water mark of rows. Sequence ids continue from the statement's.
 *
 * <p>{@link #writabilityChanged()} and {@link #nextSequenceId()} may be called from any thread; the rest from the
 * worker only.
 */
final class ChannelResultSink implements ResultSink {

    private static final int FLUSH_BYTES = 64 * 1024;

    private final Channel channel;
    private final boolean deprecateEof;
    private final int statusFlags;
    private final Object writable = new Object();
    private final java.util.concurrent.atomic.AtomicLong inFlightBytes = new java.util.concurrent.atomic.AtomicLong();
    private volatile int sequenceId;
    private int unflushed;
    private List<Object> pending = new java.util.ArrayList<>();
    /** Rows framed as packets, not yet pending; null when none. */
    private ByteBuf batch;
    private int batchFirstSequenceId;
    /** {@code KILL QUERY} from another connection: the producer stops, and the result ends with error 1317. */
    private volatile boolean killed;
    /** Whether the result ended (its end or an error was sent). */
    private boolean finished;

    ChannelResultSink(Channel channel, int firstSequenceId, boolean deprecateEof, int statusFlags) {
        this.channel = channel;
        this.sequenceId = firstSequenceId;
        this.deprecateEof = deprecateEof;
        this.statusFlags = statusFlags;
    }

    /** The sequence id the next packet would carry (for the connection, once the answer is complete). */
    int nextSequenceId() {
        return sequenceId;
    }

    /** {@code KILL QUERY}: any thread. */
    void kill() {
        killed = true;
        writabilityChanged();
    }

    boolean killed() {
        return killed;
    }

    /** Whether the end of the result or an error was sent (worker thread). */
    boolean finished() {
        return finished;
    }

    void writabilityChanged() {
        synchronized (writable) {
            writable.notifyAll();
        }
    }

    @Override
    public void columns(List<ColumnDefinition> columns) {
        send(buf -> WireBuffers.writeLenEncInt(buf, columns.size()));
        for (ColumnDefinition c : columns) {
            send(c);
        }
        if (!deprecateEof) {
            send(new EofPacket(0, statusFlags));
        }
    }

    @Override
    public void row(byte[][] values, int count) {
        long size = 0;
        for (int i = 0; i < count; i++) {
            size += values[i] == null ? 1 : values[i].length + 9;
        }
        if (size >= MySqlProtocol.MAX_PACKET_PAYLOAD) {
            ByteBuf buf = Unpooled.buffer((int) Math.min(Integer.MAX_VALUE - 8, size));
            writeValues(buf, values, count);
            write(buf); // split into 16 MB packets by the encoder
        } else {
            // framed here, next to the rows before it: no per-row buffer or packet object
            if (batch == null) {
                batch = channel.alloc().heapBuffer(FLUSH_BYTES + 1024);
                batchFirstSequenceId = sequenceId;
            }
            int start = batch.writerIndex();
            batch.writeMediumLE(0).writeByte(sequenceId);
            writeValues(batch, values, count);
            int length = batch.writerIndex() - start - MySqlProtocol.PACKET_HEADER_BYTES;
            batch.setMediumLE(start, length);
            sequenceId = (sequenceId + 1) & 0xFF;
            unflushed += length;
            if (unflushed >= FLUSH_BYTES) {
                flush();
            }
        }
        awaitWritable();
    }

    private static void writeValues(ByteBuf buf, byte[][] values, int count) {
        for (int i = 0; i < count; i++) {
            if (values[i] == null) {
                buf.writeByte(WireBuffers.LENENC_NULL);
            } else {
                WireBuffers.writeLenEncBytes(buf, values[i]);
            }
        }
    }

    /** Moves the framed rows into the pending packets, in order. */
    private void closeBatch() {
        if (batch != null) {
            pending.add(new FramedPackets(batch, batchFirstSequenceId, sequenceId));
            batch = null;
        }
    }

    @Override
    public void end() {
        finished = true;
        if (deprecateEof) {
            send(buf -> buf.writeByte(MySqlProtocol.EOF_HEADER).writeByte(0).writeByte(0).writeShortLE(statusFlags)
                    .writeShortLE(0));
        } else {
            send(new EofPacket(0, statusFlags));
        }
        flush();
    }

    @Override
    public void error(ErrPacket error) {
        finished = true;
        send(error);
        flush();
    }

    @Override
    public boolean cancelled() {
        return killed || !channel.isActive() || Thread.currentThread().isInterrupted();
    }

    private void send(MySqlMessage m) {
        ByteBuf buf = Unpooled.buffer(64);
        m.encode(buf);
        write(buf);
    }

    private void write(ByteBuf payload) {
        int length = payload.readableBytes();
        closeBatch();
        int first = sequenceId;
        sequenceId = (first + length / MySqlProtocol.MAX_PACKET_PAYLOAD + 1) & 0xFF;
        pending.add(new MySqlPacket(first, payload));
        unflushed += length;
        if (unflushed >= FLUSH_BYTES) {
            flush();
        }
    }

    /** Hands the pending packets to the event loop as one task (one wake-up per batch, not per row). */
    private void flush() {
        closeBatch();
        if (pending.isEmpty()) {
            return;
        }
        List<Object> batch = pending;
        long bytes = unflushed;
        pending = new java.util.ArrayList<>();
        unflushed = 0;
        inFlightBytes.addAndGet(bytes);
        try {
            channel.eventLoop().execute(() -> {
                for (Object p : batch) {
                    channel.write(p, channel.voidPromise()); // a failed write reaches exceptionCaught
                }
                inFlightBytes.addAndGet(-bytes);
                channel.flush();
                writabilityChanged();
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            inFlightBytes.addAndGet(-bytes); // the server is shutting down
            batch.forEach(p -> {
                if (p instanceof MySqlPacket m) {
                    m.release();
                } else {
                    ((FramedPackets) p).bytes().release();
                }
            });
        }
    }

    private boolean blocked() {
        return inFlightBytes.get() > 4L * FLUSH_BYTES || !channel.isWritable();
    }

    /** Waits while the client is not reading (the channel's outbound buffer is full). */
    private void awaitWritable() {
        if (!blocked()) {
            return;
        }
        synchronized (writable) {
            while (blocked() && channel.isActive() && !killed) {
                try {
                    writable.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
