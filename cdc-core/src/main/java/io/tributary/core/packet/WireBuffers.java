package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Reads and writes the MySQL protocol's basic data types
 * (<a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_basic_data_types.html">
 * Basic Data Types</a>): length-encoded integers and strings, NUL-terminated strings, fixed-length
 * strings. Every read checks the declared length against the bytes actually there and throws a
 * {@link MySqlProtocolException} naming the field, the offset and both lengths.
 */
public final class WireBuffers {
    /** Length-encoded NULL (a NULL column value in a text row). */
    public static final int LENENC_NULL = 0xFB;

    private WireBuffers() {
    }

    /** Throws unless {@code n} bytes are readable; {@code what} names the field for the message. */
    public static void require(ByteBuf buf, long n, String what) {
        if (n < 0 || buf.readableBytes() < n) {
            throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET, "malformed packet: " + what
                    + " needs " + n + " bytes at offset " + buf.readerIndex() + ", only "
                    + buf.readableBytes() + " left");
        }
    }

    public static long readLenEncInt(ByteBuf buf, String what) {
        require(buf, 1, what);
        int first = buf.readUnsignedByte();
        switch (first) {
            case 0xFC -> {
                require(buf, 2, what);
                return buf.readUnsignedShortLE();
            }
            case 0xFD -> {
                require(buf, 3, what);
                return buf.readUnsignedMediumLE();
            }
            case 0xFE -> {
                require(buf, 8, what);
                return buf.readLongLE();
            }
            case 0xFB, 0xFF -> throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET,
                    "malformed packet: " + what + " has invalid length-encoded integer prefix 0x"
                            + Integer.toHexString(first) + " at offset " + (buf.readerIndex() - 1));
            default -> {
                return first;
            }
        }
    }

    public static void writeLenEncInt(ByteBuf buf, long value) {
        if (value < 0) {
            buf.writeByte(0xFE).writeLongLE(value);
        } else if (value < 0xFB) {
            buf.writeByte((int) value);
        } else if (value < 0x1_0000) {
            buf.writeByte(0xFC).writeShortLE((int) value);
        } else if (value < 0x100_0000) {
            buf.writeByte(0xFD).writeMediumLE((int) value);
        } else {
            buf.writeByte(0xFE).writeLongLE(value);
        }
    }

    public static byte[] readLenEncBytes(ByteBuf buf, String what) {
        long length = readLenEncInt(buf, what + " length");
        require(buf, length, what);
        byte[] bytes = new byte[(int) length];
        buf.readBytes(bytes);
        return bytes;
    }

    public static String readLenEncString(ByteBuf buf, String what) {
        return new String(readLenEncBytes(buf, what), StandardCharsets.UTF_8);
    }

    public static void writeLenEncBytes(ByteBuf buf, byte[] bytes) {
        writeLenEncInt(buf, bytes.length);
        buf.writeBytes(bytes);
    }

    public static void writeLenEncString(ByteBuf buf, String s) {
        writeLenEncBytes(buf, s.getBytes(StandardCharsets.UTF_8));
    }

    public static byte[] readNulBytes(ByteBuf buf, String what) {
        int end = buf.indexOf(buf.readerIndex(), buf.writerIndex(), (byte) 0);
        if (end < 0) {
            throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET, "malformed packet: " + what
                    + " at offset " + buf.readerIndex() + " has no terminating NUL in the "
                    + buf.readableBytes() + " bytes left");
        }
        byte[] bytes = new byte[end - buf.readerIndex()];
        buf.readBytes(bytes);
        buf.skipBytes(1);
        return bytes;
    }

    public static String readNulString(ByteBuf buf, String what) {
        return new String(readNulBytes(buf, what), StandardCharsets.UTF_8);
    }

    public static void writeNulString(ByteBuf buf, String s) {
        buf.writeBytes(s.getBytes(StandardCharsets.UTF_8)).writeByte(0);
    }

    public static byte[] readFixedBytes(ByteBuf buf, int length, String what) {
        require(buf, length, what);
        byte[] bytes = new byte[length];
        buf.readBytes(bytes);
        return bytes;
    }

    /** The rest of the payload as a string. */
    public static String readRestString(ByteBuf buf) {
        String s = buf.toString(buf.readerIndex(), buf.readableBytes(), StandardCharsets.UTF_8);
        buf.skipBytes(buf.readableBytes());
        return s;
    }

    public static byte[] readRestBytes(ByteBuf buf) {
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }

    /** Reads the command byte and checks it. */
    public static void expectCommand(ByteBuf buf, int command, String name) {
        require(buf, 1, name + " command byte");
        int found = buf.readUnsignedByte();
        if (found != command) {
            throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET, "malformed packet: expected "
                    + name + " (0x" + Integer.toHexString(command) + "), found command byte 0x"
                    + Integer.toHexString(found));
        }
    }
}
