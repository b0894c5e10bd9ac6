package io.tributary.daemon;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The Tributary daemon. Today it validates its configuration and starts nothing else: the pipeline
 * (readers, sorter, writer) and the dump server are wired in as the daemon issue proceeds (see README,
 * Status).
 */
@SpringBootApplication
public class TributaryApplication {

    public static void main(String[] args) {
        SpringApplication.run(TributaryApplication.class, args);
    }
}
