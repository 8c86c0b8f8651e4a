#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H
#include <libpq-fe.h>

/* libpq's PG_DIAG_* macros are character literals, which Swift cannot import.
   Re-export them as an enum so Swift code can ask PQresultErrorField for them. */
typedef enum {
    CLibPQDiagSeverity = 'S',
    CLibPQDiagSeverityNonLocalized = 'V',
    CLibPQDiagSQLState = 'C',
    CLibPQDiagMessagePrimary = 'M',
    CLibPQDiagMessageDetail = 'D',
    CLibPQDiagMessageHint = 'H',
    CLibPQDiagStatementPosition = 'P',
    CLibPQDiagContext = 'W',
    CLibPQDiagSchemaName = 's',
    CLibPQDiagTableName = 't',
    CLibPQDiagColumnName = 'c',
    CLibPQDiagDatatypeName = 'd',
    CLibPQDiagConstraintName = 'n',
} CLibPQDiagField;

#endif
