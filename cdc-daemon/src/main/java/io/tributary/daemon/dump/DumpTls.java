package io.tributary.daemon.dump;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The dump server's TLS: the configured PEM certificate and key ({@code dump.tls.certificate},
 * {@code dump.tls.key}), or a self-signed certificate generated at startup when TLS is on and none is
 * configured, as a MySQL 8 server does on its first start. The generated one: EC P-256, SHA256withECDSA,
 * {@code CN=Tributary dump server (self-signed)}, subject alternative names {@code localhost}, this host's
 * name, {@code 127.0.0.1} and {@code ::1}, valid from a day before startup for ten years; kept in memory only
 * (a new one at every start). Clients that verify certificates need the configured kind; others (Connector/J
 * {@code sslMode=REQUIRED}/{@code trust}, {@code mariadb --ssl}) encrypt with either, and users can compare
 * the logged SHA-256 fingerprint with what their client shows.
 *
 * @param context     the server-side TLS context for Netty
 * @param fingerprint SHA-256 of the (first) certificate's DER encoding, as {@code AB:CD:...}
 * @param generated   whether it was generated here
 */
record DumpTls(SslContext context, String fingerprint, boolean generated) {
    static final String GENERATED_SUBJECT = "CN=Tributary dump server (self-signed)";

    /** From PEM files. @throws IllegalArgumentException saying what is wrong with them */
    static DumpTls fromPem(Path certificate, Path key) {
        try (InputStream in = Files.newInputStream(certificate)) {
            X509Certificate first = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            SslContext context = SslContextBuilder.forServer(certificate.toFile(), key.toFile()).build();
            return new DumpTls(context, fingerprint(first), false);
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot use dump.tls.certificate " + certificate + " with dump.tls.key "
                    + key + " (PEM certificate chain and PEM PKCS#8 key expected): " + e.getMessage(), e);
        }
    }

    /** A new self-signed certificate and its key. */
    static DumpTls generate() {
        try {
            // EC P-256: generated in milliseconds (an RSA 2048 key takes seconds on a busy machine), and every
            // TLS 1.2/1.3 client of MySQL and MariaDB accepts it
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new java.security.spec.ECGenParameterSpec("secp256r1"));
            KeyPair pair = g.generateKeyPair();
            X500Name subject = new X500Name(GENERATED_SUBJECT);
            Instant now = Instant.now();
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject,
                    new BigInteger(64, new SecureRandom()), Date.from(now.minus(Duration.ofDays(1))),
                    Date.from(now.plus(Duration.ofDays(3650))), subject, pair.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(alternativeNames()));
            X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
            SslContext context = SslContextBuilder.forServer(pair.getPrivate(), certificate).build();
            return new DumpTls(context, fingerprint(certificate), true);
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("cannot generate the dump server's self-signed TLS certificate: " + e
                    + "; configure dump.tls.certificate and dump.tls.key, or set dump.tls.enabled=false", e);
        }
    }

    private static GeneralName[] alternativeNames() {
        Set<String> dns = new LinkedHashSet<>();
        dns.add("localhost");
        try {
            dns.add(InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT));
        } catch (IOException e) {
            // no resolvable host name: localhost and the loopback addresses only
        }
        GeneralName[] names = new GeneralName[dns.size() + 2];
        int i = 0;
        for (String d : dns) {
            names[i++] = new GeneralName(GeneralName.dNSName, d);
        }
        names[i++] = new GeneralName(GeneralName.iPAddress, "127.0.0.1");
        names[i] = new GeneralName(GeneralName.iPAddress, "::1");
        return names;
    }

    static String fingerprint(X509Certificate certificate) throws GeneralSecurityException {
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded());
        return HexFormat.ofDelimiter(":").withUpperCase().formatHex(sha);
    }

    @Override
    public String toString() {
        return "DumpTls[" + (generated ? "generated self-signed" : "configured") + ", SHA-256 " + fingerprint + "]";
    }
}
