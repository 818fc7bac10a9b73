/* A driver the ring library reads from: declared here, defined in none of its files
 * (cooptest stubs it). */
int device_read(int port);
