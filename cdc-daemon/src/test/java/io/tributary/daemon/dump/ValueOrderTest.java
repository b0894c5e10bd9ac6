package io.tributary.daemon.dump;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValueOrderTest {

    private static List<String> sorted(ValueOrder order, boolean ascending, String... values) {
        List<byte[]> v = new ArrayList<>();
        for (String s : values) {
            v.add(s == null ? null : s.getBytes(StandardCharsets.UTF_8));
        }
        v.sort(order.direction(ascending));
        List<String> out = new ArrayList<>();
        v.forEach(b -> out.add(b == null ? null : new String(b, StandardCharsets.UTF_8)));
        return out;
    }

    @Test
    void integersCompareNumericallyAtAnyWidthAndSign() {
        assertThat(sorted(ValueOrder.INTEGER, true, "10", "9", "-1", "-10", "0", "18446744073709551615",
                "9223372036854775807", "-9223372036854775808", "00042"))
                .containsExactly("-9223372036854775808", "-10", "-1", "0", "9", "10", "00042", "9223372036854775807",
                        "18446744073709551615");
    }

    @Test
    void decimalsFloatsAndTimesCompareByValueNotText() {
        assertThat(sorted(ValueOrder.DECIMAL, true, "10.50", "9.99", "-0.01", "100.00"))
                .containsExactly("-0.01", "9.99", "10.50", "100.00");
        assertThat(sorted(ValueOrder.FLOAT, true, "1e+20", "2.5", "-3", "1e-5"))
                .containsExactly("-3", "1e-5", "2.5", "1e+20");
        assertThat(sorted(ValueOrder.TIME, true, "100:00:00", "99:59:59", "-01:00:00", "00:00:00.5", "00:00:00.25"))
                .containsExactly("-01:00:00", "00:00:00.25", "00:00:00.5", "99:59:59", "100:00:00");
    }

    @Test
    void bytesCompareUnsignedShorterFirstAsCollationWeightsDo() {
        byte[] a = {0x00, 0x41};
        byte[] b = {(byte) 0xC3, 0x00};
        byte[] prefix = {0x00};
        List<byte[]> v = new ArrayList<>(List.of(b, a, prefix));
        v.sort(ValueOrder.BYTES);
        assertThat(v).containsExactly(prefix, a, b);
        assertThat(ValueOrder.BYTES.compare(Arrays.copyOf(a, 2), a)).isZero();
    }

    @Test
    void nullsSortFirstAscendingAndLastDescending() {
        assertThat(sorted(ValueOrder.INTEGER, true, "2", null, "1")).containsExactly(null, "1", "2");
        assertThat(sorted(ValueOrder.INTEGER, false, "2", null, "1")).containsExactly("2", "1", null);
    }
}
