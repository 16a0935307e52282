//! `results.parquet`: the results table as one Parquet file, one
//! row per cell, the same columns as `results.csv` (every parameter, every scalar
//! metric, `wafer_version`, `trace_checksum`, `elapsed_s`).
//!
//! Written with the `parquet` crate's low-level writer (no Arrow, which would add a
//! large build for one small table): one row group, zstd pages, every column
//! OPTIONAL (a cell without a device has null `ftl_*` columns). Column types follow
//! the Rust types of the row: text -> BYTE_ARRAY (UTF8), unsigned counters -> INT64
//! (UINT_64), ratios and times -> DOUBLE, flags -> BOOLEAN. The file's key-value
//! metadata names the wafer version. pandas and pyarrow read it as is
//! (`pandas.read_parquet("results.parquet")`).

use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::format::KeyValue;
use parquet::schema::types::Type;
use serde_json::Value;

use crate::error::LabError;
use crate::spec::VERSION;

/// One row: `(column, value)` pairs.
pub type Row = Vec<(String, Value)>;

/// The storage type of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Text,
    Count,
    Real,
    Flag,
}

fn kind(v: &Value) -> Kind {
    match v {
        Value::String(_) | Value::Null | Value::Array(_) | Value::Object(_) => Kind::Text,
        Value::Bool(_) => Kind::Flag,
        Value::Number(n) if n.is_u64() || n.is_i64() => Kind::Count,
        Value::Number(_) => Kind::Real,
    }
}

fn pq_err(e: parquet::errors::ParquetError) -> LabError {
    LabError::Invalid(format!("parquet: {e}"))
}

/// Encode `rows` as a Parquet file. `template` is a row with every column present
/// (no nulls) that fixes the column types, so that a column null in every row (no
/// device) keeps its type.
pub fn encode(rows: &[Row], template: &Row) -> Result<Vec<u8>, LabError> {
    let kinds: Vec<Kind> = template.iter().map(|(_, v)| kind(v)).collect();
    let mut fields = Vec::with_capacity(template.len());
    for ((name, _), k) in template.iter().zip(&kinds) {
        let (physical, logical) = match k {
            Kind::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
            Kind::Count => (
                Physical::INT64,
                Some(LogicalType::Integer {
                    bit_width: 64,
                    is_signed: false,
                }),
            ),
            Kind::Real => (Physical::DOUBLE, None),
            Kind::Flag => (Physical::BOOLEAN, None),
        };
        let t = Type::primitive_type_builder(name, physical)
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(logical)
            .build()
            .map_err(pq_err)?;
        fields.push(Arc::new(t));
    }
    let schema = Type::group_type_builder("wafer_results")
        .with_fields(fields)
        .build()
        .map_err(pq_err)?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_created_by(format!("wafer {VERSION}"))
        .set_key_value_metadata(Some(vec![KeyValue::new(
            "wafer_version".to_string(),
            VERSION.to_string(),
        )]))
        .build();
    let mut buf = Vec::new();
    let mut w =
        SerializedFileWriter::new(&mut buf, Arc::new(schema), Arc::new(props)).map_err(pq_err)?;
    let mut rg = w.next_row_group().map_err(pq_err)?;
    let mut col = 0;
    while let Some(mut cw) = rg.next_column().map_err(pq_err)? {
        let name = &template[col].0;
        let cells: Vec<&Value> = rows
            .iter()
            .map(|r| {
                r.get(col)
                    .filter(|(n, _)| n == name)
                    .map_or(&Value::Null, |(_, v)| v)
            })
            .collect();
        let def: Vec<i16> = cells.iter().map(|v| i16::from(!v.is_null())).collect();
        let present = cells.iter().filter(|v| !v.is_null());
        match kinds[col] {
            Kind::Text => {
                let vals: Vec<ByteArray> = present
                    .map(|v| match v {
                        Value::String(s) => ByteArray::from(s.as_str()),
                        other => ByteArray::from(other.to_string().as_str()),
                    })
                    .collect();
                cw.typed::<ByteArrayType>()
                    .write_batch(&vals, Some(&def), None)
                    .map_err(pq_err)?;
            }
            Kind::Count => {
                // UINT_64 is stored in INT64's bits.
                let vals: Vec<i64> = present
                    .map(|v| v.as_u64().unwrap_or_default() as i64)
                    .collect();
                cw.typed::<Int64Type>()
                    .write_batch(&vals, Some(&def), None)
                    .map_err(pq_err)?;
            }
            Kind::Real => {
                let vals: Vec<f64> = present.map(|v| v.as_f64().unwrap_or(f64::NAN)).collect();
                cw.typed::<DoubleType>()
                    .write_batch(&vals, Some(&def), None)
                    .map_err(pq_err)?;
            }
            Kind::Flag => {
                let vals: Vec<bool> = present.map(|v| v.as_bool().unwrap_or(false)).collect();
                cw.typed::<BoolType>()
                    .write_batch(&vals, Some(&def), None)
                    .map_err(pq_err)?;
            }
        }
        cw.close().map_err(pq_err)?;
        col += 1;
    }
    rg.close().map_err(pq_err)?;
    w.close().map_err(pq_err)?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    use serde_json::json;

    fn row(policy: &str, hits: u64, waf: Option<f64>) -> Row {
        vec![
            ("policy".into(), json!(policy)),
            ("hits".into(), json!(hits)),
            ("ftl_waf".into(), waf.map_or(Value::Null, |w| json!(w))),
            ("aging_fill".into(), json!(false)),
        ]
    }

    #[test]
    fn rows_read_back_with_types_and_nulls() {
        let rows = vec![row("lru", 3, None), row("clock:insert_ref=0", 7, None)];
        let template = row("", 0, Some(0.0));
        let bytes = encode(&rows, &template).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.parquet");
        std::fs::write(&path, bytes).unwrap();
        let r = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let md = r.metadata().file_metadata();
        assert_eq!(md.num_rows(), 2);
        let kv = md.key_value_metadata().unwrap();
        assert_eq!(kv[0].key, "wafer_version");
        assert_eq!(kv[0].value.as_deref(), Some(VERSION));
        let got: Vec<Vec<(String, Field)>> = r
            .get_row_iter(None)
            .unwrap()
            .map(|row| {
                row.unwrap()
                    .get_column_iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .collect();
        assert_eq!(
            got[1][0],
            ("policy".into(), Field::Str("clock:insert_ref=0".into()))
        );
        assert_eq!(got[1][1], ("hits".into(), Field::ULong(7)));
        assert_eq!(got[0][2], ("ftl_waf".into(), Field::Null));
        assert_eq!(got[0][3], ("aging_fill".into(), Field::Bool(false)));
    }
}
