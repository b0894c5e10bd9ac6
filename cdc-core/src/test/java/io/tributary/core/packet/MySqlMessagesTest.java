package io.tributary.core.packet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class MySqlMessagesTest {
    /** The greeting MariaDB 10.11.19 sent to a TCP client here (payload, captured with a raw socket). */
    private static final String MARIADB_GREETING = "0a352e352e352d31302e31312e31392d4d6172696144422d302b646562313275312d6c6f67"
            + "000d0000007a45293d3635464000fef7080200ff81150000000000001d0000004d45524b5f7e7a6c2f413c48006d7973716c5f6e61"
            + "746976655f70617373776f726400";

    private static <T extends MySqlMessage> T roundTrip(T message, Function<ByteBuf, T> decoder) {
        ByteBuf buf = Unpooled.buffer();
        try {
            message.encode(buf);
            T back = decoder.apply(buf);
            assertThat(buf.isReadable()).as("bytes left after decoding %s", message).isFalse();
            return back;
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldReadARealMariaDbGreeting() {
        ByteBuf p = Unpooled.wrappedBuffer(HexFormat.of().parseHex(MARIADB_GREETING));
        HandshakeV10 h = HandshakeV10.decode(p);
        assertThat(h.serverVersion()).isEqualTo("5.5.5-10.11.19-MariaDB-0+deb12u1-log");
        assertThat(h.isMariaDb()).isTrue();
        assertThat(h.connectionId()).isEqualTo(13);
        assertThat(h.authPluginData()).hasSize(20);
        assertThat(new String(h.authPluginData(), 0, 8, StandardCharsets.ISO_8859_1)).isEqualTo("zE)=65F@");
        assertThat(h.authPluginName()).isEqualTo("mysql_native_password");
        assertThat(h.hasCapability(MySqlProtocol.CLIENT_PROTOCOL_41)).isTrue();
        assertThat(h.hasCapability(MySqlProtocol.CLIENT_PLUGIN_AUTH)).isTrue();
        assertThat(h.characterSet()).isEqualTo(8);
        // re-encoding gives the server's bytes back, apart from MariaDB's extended capabilities in the reserved area
        ByteBuf again = Unpooled.buffer();
        h.encode(again);
        byte[] original = HexFormat.of().parseHex(MARIADB_GREETING);
        byte[] ours = new byte[again.readableBytes()];
        again.readBytes(ours);
        again.release();
        assertThat(ours).hasSameSizeAs(original);
        int reserved = 1 + h.serverVersion().length() + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 2 + 1;
        assertThat(Arrays.copyOfRange(ours, 0, reserved)).isEqualTo(Arrays.copyOfRange(original, 0, reserved));
        assertThat(Arrays.copyOfRange(ours, reserved + 10, ours.length))
                .isEqualTo(Arrays.copyOfRange(original, reserved + 10, original.length));
        p.release();
    }

    @Test
    void shouldNameTheFieldWhenAGreetingIsFlipped() {
        byte[] bytes = HexFormat.of().parseHex(MARIADB_GREETING);
        bytes[0] = 11;
        assertThatThrownBy(() -> HandshakeV10.decode(Unpooled.wrappedBuffer(bytes)))
                .isInstanceOf(MySqlProtocolException.class)
                .hasMessage("unsupported handshake: expected protocol version 10, found 11");
        byte[] truncated = Arrays.copyOf(HexFormat.of().parseHex(MARIADB_GREETING), 45);
        assertThatThrownBy(() -> HandshakeV10.decode(Unpooled.wrappedBuffer(truncated)))
                .isInstanceOf(MySqlProtocolException.class)
                .hasMessage("malformed packet: handshake connection id, auth data part 1 and capabilities needs 15 bytes at offset 38, only 7 left");
    }

    @Test
    void shouldParseErrPacketsWithAndWithoutSqlState() {
        byte[] withState = HexFormat.of().parseHex("ff1504233238303030")
                ;
        ByteBuf p = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(withState),
                Unpooled.copiedBuffer("Access denied for user 'cdc'@'127.0.0.1' (using password: YES)", StandardCharsets.UTF_8));
        ErrPacket err = ErrPacket.decode(p);
        p.release();
        assertThat(err).isEqualTo(new ErrPacket(1045, "28000", "Access denied for user 'cdc'@'127.0.0.1' (using password: YES)"));
        assertThat(err.error()).isEqualTo(MySqlError.ER_ACCESS_DENIED_ERROR);
        ByteBuf old = Unpooled.wrappedBuffer(HexFormat.of().parseHex("ffd404"), "Could not find first log".getBytes(StandardCharsets.UTF_8));
        assertThat(ErrPacket.decode(old)).isEqualTo(new ErrPacket(1236, "HY000", "Could not find first log"));
        old.release();
        assertThat(roundTrip(MySqlError.ER_MASTER_FATAL_ERROR_READING_BINLOG.toPacket("purged"), ErrPacket::decode))
                .isEqualTo(new ErrPacket(1236, "HY000", "purged"));
        byte[] flipped = HexFormat.of().parseHex("fe1504233238303030");
        assertThatThrownBy(() -> ErrPacket.decode(Unpooled.wrappedBuffer(flipped)))
                .isInstanceOf(MySqlProtocolException.class)
                .hasMessage("malformed ERR packet: expected header 0xFF, found 0xfe");
    }

    @Test
    void shouldRoundTripEveryMessage() {
        HandshakeResponse41 resp = new HandshakeResponse41(MySqlProtocol.CLIENT_PROTOCOL_41 | MySqlProtocol.CLIENT_SECURE_CONNECTION
                | MySqlProtocol.CLIENT_PLUGIN_AUTH | MySqlProtocol.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
                | MySqlProtocol.CLIENT_CONNECT_ATTRS | MySqlProtocol.CLIENT_CONNECT_WITH_DB, 1 << 24, 45, "cdc",
                new byte[20], "shop", MySqlProtocol.CACHING_SHA2_PASSWORD, Map.of("_client_name", "tributary"));
        assertThat(roundTrip(resp, HandshakeResponse41::decode)).usingRecursiveComparison().isEqualTo(resp);
        assertThat(roundTrip(new SslRequest(MySqlProtocol.CLIENT_PROTOCOL_41 | MySqlProtocol.CLIENT_SSL, 1 << 24, 45), SslRequest::decode))
                .isEqualTo(new SslRequest(MySqlProtocol.CLIENT_PROTOCOL_41 | MySqlProtocol.CLIENT_SSL, 1 << 24, 45));
        AuthSwitchRequest sw = new AuthSwitchRequest("mysql_native_password", "0123456789abcdefghij\0".getBytes(StandardCharsets.US_ASCII));
        AuthSwitchRequest swBack = roundTrip(sw, AuthSwitchRequest::decode);
        assertThat(swBack.pluginName()).isEqualTo("mysql_native_password");
        assertThat(new String(swBack.seed(), StandardCharsets.US_ASCII)).isEqualTo("0123456789abcdefghij");
        assertThat(roundTrip(new AuthMoreData(new byte[] {4}), AuthMoreData::decode).data()).containsExactly(4);
        assertThat(roundTrip(new OkPacket(300, 70000, 2, 1, "Rows matched: 1"), OkPacket::decode))
                .isEqualTo(new OkPacket(300, 70000, 2, 1, "Rows matched: 1"));
        assertThat(roundTrip(new EofPacket(0, 2), EofPacket::decode)).isEqualTo(new EofPacket(0, 2));
        assertThat(roundTrip(new ComRegisterSlave(9001, "replica-1", "cdc", "", 3306, 0, 0), ComRegisterSlave::decode))
                .isEqualTo(new ComRegisterSlave(9001, "replica-1", "cdc", "", 3306, 0, 0));
        assertThat(roundTrip(new ComBinlogDump(4_000_000_000L, 2, 9001, "mariadb-bin.000123"), ComBinlogDump::decode))
                .isEqualTo(new ComBinlogDump(4_000_000_000L, 2, 9001, "mariadb-bin.000123"));
        ComBinlogDumpGtid gtid = new ComBinlogDumpGtid(MySqlProtocol.BINLOG_THROUGH_GTID, 9001, "", 4, List.of(
                new ComBinlogDumpGtid.Sid(UUID.fromString("3e11fa47-71ca-11e1-9e33-c80aa9429562"),
                        List.of(new ComBinlogDumpGtid.Interval(1, 6), new ComBinlogDumpGtid.Interval(7, 8)))));
        assertThat(roundTrip(gtid, ComBinlogDumpGtid::decode)).isEqualTo(gtid);
        assertThat(roundTrip(new ComQuery("SHOW BINARY LOGS"), ComQuery::decode)).isEqualTo(new ComQuery("SHOW BINARY LOGS"));
        assertThat(roundTrip(new ComQuit(), ComQuit::decode)).isEqualTo(new ComQuit());
        assertThat(roundTrip(new ComPing(), ComPing::decode)).isEqualTo(new ComPing());
    }

    @Test
    void shouldWriteTheSidBlockAsMySqlLaysItOut() {
        UUID uuid = UUID.fromString("3e11fa47-71ca-11e1-9e33-c80aa9429562");
        ComBinlogDumpGtid gtid = new ComBinlogDumpGtid(4, 1, "", 4, List.of(new ComBinlogDumpGtid.Sid(uuid,
                List.of(new ComBinlogDumpGtid.Interval(1, 6)))));
        ByteBuf buf = Unpooled.buffer();
        gtid.encode(buf);
        // 1 command + 2 flags + 4 server id + 4 name length + 0 name + 8 position, then data size and n_sids
        assertThat(buf.getUnsignedIntLE(19)).isEqualTo(8 + 16 + 8 + 16);
        assertThat(buf.getLongLE(23)).isEqualTo(1);
        assertThat(HexFormat.of().formatHex(buf.array(), 31, 47)).isEqualTo("3e11fa4771ca11e19e33c80aa9429562");
        assertThat(buf.getLongLE(47)).isEqualTo(1);
        assertThat(buf.getLongLE(55)).isEqualTo(1);
        assertThat(buf.getLongLE(63)).isEqualTo(6);
        buf.release();
    }

    @Test
    void shouldRefuseACommandWithTheWrongCommandByte() {
        assertThatThrownBy(() -> ComBinlogDump.decode(Unpooled.wrappedBuffer(new byte[] {0x1e, 0, 0})))
                .isInstanceOf(MySqlProtocolException.class)
                .hasMessage("malformed packet: expected COM_BINLOG_DUMP (0x12), found command byte 0x1e");
        byte[] sid = HexFormat.of().parseHex("1e0400010000000000000004000000000000000c00000001000000000000");
        assertThatThrownBy(() -> ComBinlogDumpGtid.decode(Unpooled.wrappedBuffer(sid)))
                .isInstanceOf(MySqlProtocolException.class)
                .hasMessage("malformed packet: SID block needs 12 bytes at offset 23, only 7 left");
    }

    @Test
    void shouldReadAResultSetPacketByPacketWithNulls() {
        TextResultSet rs = new TextResultSet(List.of(ColumnDefinition.ofText("Log_name"), ColumnDefinition.ofText("File_size")),
                List.of(Arrays.asList("mariadb-bin.000001", "1037"), Arrays.asList("mariadb-bin.000002", null)));
        for (boolean deprecateEof : new boolean[] {false, true}) {
            List<ByteBuf> payloads = new ArrayList<>();
            for (MySqlMessage m : rs.messages(deprecateEof, 2)) {
                ByteBuf b = Unpooled.buffer();
                m.encode(b);
                payloads.add(b);
            }
            assertThat(payloads).hasSize(deprecateEof ? 6 : 7);
            TextResultSetDecoder dec = new TextResultSetDecoder(deprecateEof);
            TextResultSet back = null;
            for (int i = 0; i < payloads.size(); i++) {
                back = dec.accept(payloads.get(i));
                assertThat(back == null).as("complete only after the last packet").isEqualTo(i < payloads.size() - 1);
                payloads.get(i).release();
            }
            assertThat(back).isEqualTo(rs);
            assertThat(back.columnIndex("file_size")).isEqualTo(1);
        }
    }

    @Test
    void shouldReportAnErrInsteadOfARow() {
        TextResultSetDecoder dec = new TextResultSetDecoder(false);
        ByteBuf count = Unpooled.wrappedBuffer(new byte[] {1});
        dec.accept(count);
        ByteBuf col = Unpooled.buffer();
        ColumnDefinition.ofText("a").encode(col);
        dec.accept(col);
        dec.accept(Unpooled.wrappedBuffer(HexFormat.of().parseHex("fe00000200")));
        ByteBuf err = Unpooled.buffer();
        new ErrPacket(1317, "70100", "Query execution was interrupted").encode(err);
        assertThatThrownBy(() -> dec.accept(err)).isInstanceOf(MySqlServerException.class)
                .hasMessage("result set after 0 rows: server error 1317 (70100): Query execution was interrupted");
        col.release();
        err.release();
    }
}
