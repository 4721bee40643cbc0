// The history's SQLite plumbing (reports/analysis/history*.cpp only): a
// failure mapped to exit codes, one prepared statement, one transaction.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/base/errors.h"

namespace ftb::history_db {

// A SQLite failure: a file that is not a database (or is damaged, or cannot
// be opened or written) is bad input, exit 2; anything else exit 1.
[[noreturn]] inline void sqlite_fail(sqlite3* db, const std::string& path, const std::string& doing) {
  const int code = db ? sqlite3_errcode(db) : SQLITE_CANTOPEN;
  const std::string what = doing + ": " + (db ? sqlite3_errmsg(db) : "cannot open");
  switch (code & 0xff) {
    case SQLITE_NOTADB: input_error(path, "not a history file (SQLite: file is not a database)");
    case SQLITE_CORRUPT:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM: input_error(path, what);
    default: throw std::runtime_error(path + ": " + what);
  }
}

// One prepared statement; columns and parameters 1-based as SQLite's own
// bind_* (0-based for column_*).
class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) sqlite_fail(db, path, "prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  // true while there is a row
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    sqlite_fail(db_, path_, "query");
  }
  std::string text(int c) const {
    const auto* p = sqlite3_column_text(stmt_, c);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  int64_t integer(int c) const { return sqlite3_column_int64(stmt_, c); }
  bool is_null(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }
  double number(int c) const { return sqlite3_column_double(stmt_, c); }

 private:
  sqlite3* db_;
  const std::string& path_;
  sqlite3_stmt* stmt_ = nullptr;
};

inline void exec(sqlite3* db, const std::string& path, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    sqlite3_free(err);
    sqlite_fail(db, path, std::string("exec ") + std::string(sql).substr(0, 40));
  }
}

// BEGIN IMMEDIATE ... COMMIT; rolls back when left by an exception.
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) { exec(db, path, "BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    exec(db_, path_, "COMMIT");
    done_ = true;
  }

 private:
  sqlite3* db_;
  const std::string& path_;
  bool done_ = false;
};

}  // namespace ftb::history_db
