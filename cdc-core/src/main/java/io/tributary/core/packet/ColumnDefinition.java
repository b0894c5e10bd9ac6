package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * Protocol::ColumnDefinition41: catalog, schema, table, original table, name, original name
 * (length-encoded strings), length of the fixed fields (0x0C), character set (2), column length
 * (4), type (1), flags (2), decimals (1), 2 filler bytes.
 */
public record ColumnDefinition(String catalog, String schema, String table, String orgTable, String name,
                               String orgName, int characterSet, long columnLength, int type, int flags,
                               int decimals) implements MySqlMessage {

    /** A text column as a server describes computed values ({@code VAR_STRING}, utf8mb4). */
    public static ColumnDefinition ofText(String name) {
        return new ColumnDefinition("def", "", "", "", name, "", MySqlProtocol.UTF8MB4_GENERAL_CI, 1024, 0xFD, 0, 31);
    }

    public static ColumnDefinition decode(ByteBuf in) {
        String catalog = WireBuffers.readLenEncString(in, "column catalog");
        String schema = WireBuffers.readLenEncString(in, "column schema");
        String table = WireBuffers.readLenEncString(in, "column table");
        String orgTable = WireBuffers.readLenEncString(in, "column original table");
        String name = WireBuffers.readLenEncString(in, "column name");
        String orgName = WireBuffers.readLenEncString(in, "column original name");
        long fixed = WireBuffers.readLenEncInt(in, "column fixed fields length");
        WireBuffers.require(in, Math.max(fixed, 10), "column fixed fields");
        int start = in.readerIndex();
        ColumnDefinition c = new ColumnDefinition(catalog, schema, table, orgTable, name, orgName,
                in.readUnsignedShortLE(), in.readUnsignedIntLE(), in.readUnsignedByte(), in.readUnsignedShortLE(),
                in.readUnsignedByte());
        in.readerIndex(start + (int) Math.max(fixed, 10));
        in.skipBytes(in.readableBytes());
        return c;
    }

    @Override
    public void encode(ByteBuf out) {
        WireBuffers.writeLenEncString(out, catalog);
        WireBuffers.writeLenEncString(out, schema);
        WireBuffers.writeLenEncString(out, table);
        WireBuffers.writeLenEncString(out, orgTable);
        WireBuffers.writeLenEncString(out, name);
        WireBuffers.writeLenEncString(out, orgName);
        out.writeByte(0x0C).writeShortLE(characterSet).writeIntLE((int) columnLength).writeByte(type)
                .writeShortLE(flags).writeByte(decimals).writeZero(2);
    }
}
