// The rendezvous port of a launch (see launcher.h): resolving MASTER_ADDR,
// binding and listening on MASTER_PORT, and the InputErrors that name which
// of the two is unusable.
#include "scenarios/parallel/launcher.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/base/errors.h"

namespace ftb {
namespace {

// getaddrinfo's list, freed whichever way the caller leaves.
struct AddrList {
  addrinfo* head = nullptr;
  AddrList() = default;
  AddrList(const AddrList&) = delete;
  AddrList& operator=(const AddrList&) = delete;
  ~AddrList() {
    if (head) freeaddrinfo(head);
  }
};

void resolve(const std::string& addr, int port, AddrList& out) {
  if (addr.empty()) input_error("MASTER_ADDR", "is empty; expected a host name or IP address");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  const int rc = getaddrinfo(addr.c_str(), std::to_string(port).c_str(), &hints, &out.head);
  if (rc != 0) input_error("MASTER_ADDR", "cannot resolve \"" + addr + "\": " + gai_strerror(rc));
}

// Binds a TCP socket to `a`. Returns 0 (and the bound port) or errno. The
// socket is closed, or with `keep` left open and listening in *keep.
int try_bind(const addrinfo* a, bool reuse, int* bound_port, int* keep = nullptr) {
  const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
  if (fd < 0) return errno;
  int err = 0;
  const int one = 1;
  if (reuse) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, a->ai_addr, a->ai_addrlen) != 0) {
    err = errno;
  } else if (keep && listen(fd, SOMAXCONN) != 0) {
    err = errno;
  } else if (bound_port) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
      err = errno;
    } else {
      char serv[NI_MAXSERV];
      const int rc = getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, nullptr, 0, serv, sizeof serv, NI_NUMERICSERV);
      if (rc != 0) err = EINVAL;
      else *bound_port = std::atoi(serv);
    }
  }
  if (keep && err == 0) *keep = fd;
  else close(fd);
  return err;
}

// The messages of check_port_free and listen_on for a bind that failed with `err`.
[[noreturn]] void bind_error(const std::string& addr, int port, int err) {
  if (port == 0)  // any port: the address is the problem
    input_error("MASTER_ADDR", "cannot bind a port on \"" + addr + "\": " + std::strerror(err) +
                                   " (it must be an address of this machine)");
  if (err == EADDRINUSE)
    input_error("MASTER_PORT", "port " + std::to_string(port) + " on " + addr +
                                   " is already in use (another run, or a rank left from one, holds it); "
                                   "choose another port, or 0 to pick a free one");
  if (err == EACCES)
    input_error("MASTER_PORT", "port " + std::to_string(port) + " on " + addr +
                                   ": permission denied (ports below 1024 need root); choose another port");
  input_error("MASTER_ADDR", "cannot bind \"" + addr + "\" port " + std::to_string(port) + ": " + std::strerror(err) +
                                 " (it must be an address of this machine)");
}

}  // namespace

int pick_free_port(const std::string& addr) {
  AddrList list;
  resolve(addr, 0, list);
  int first_err = 0;
  for (const addrinfo* a = list.head; a; a = a->ai_next) {
    int port = 0;
    const int err = try_bind(a, false, &port);
    if (err == 0 && port > 0) return port;
    if (!first_err) first_err = err ? err : EINVAL;
  }
  bind_error(addr, 0, first_err);
}

int listen_on(const std::string& addr, int port, int* bound_port) {
  if (port < 0 || port > 65535) input_error("MASTER_PORT", "expected a TCP port in 1..65535, got " + std::to_string(port));
  AddrList list;
  resolve(addr, port, list);
  int first_err = 0;
  for (const addrinfo* a = list.head; a; a = a->ai_next) {
    int fd = -1;
    const int err = try_bind(a, /*reuse=*/port != 0, bound_port, &fd);
    if (err == 0) return fd;
    if (err == EADDRINUSE) bind_error(addr, port, err);
    if (!first_err) first_err = err;
  }
  bind_error(addr, port, first_err ? first_err : EINVAL);
}

void check_port_free(const std::string& addr, int port) {
  if (port < 1 || port > 65535) input_error("MASTER_PORT", "expected a TCP port in 1..65535, got " + std::to_string(port));
  AddrList list;
  resolve(addr, port, list);
  int first_err = 0;
  bool bound = false;
  for (const addrinfo* a = list.head; a; a = a->ai_next) {
    const int err = try_bind(a, true, nullptr);
    if (err == EADDRINUSE) bind_error(addr, port, err);
    if (err == 0) bound = true;
    else if (!first_err) first_err = err;
  }
  if (!bound) bind_error(addr, port, first_err);
}

}  // namespace ftb
